/**
 * `memory-graph/reducers`: the state reducers alone (window trimming, node-scoped memory, event
 * retention, errors, regeneration threads) for an annotation of your own. Pure and synchronous;
 * importing them loads no storage engine.
 */
export * from "../reducers/index.js";
