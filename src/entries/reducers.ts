/**
 * `memory-graph/reducers`: the state reducers alone (window trimming, node-scoped memory, event
 * retention, errors, regeneration threads) for an annotation of your own. Pure and synchronous;
 * importing them loads no storage engine.
 */
export * from "../graph/reducers.js";
export * from "../messages/message-meta.js";
export * from "../messages/thread.js";
export * from "../memory/retention-policy.js";
