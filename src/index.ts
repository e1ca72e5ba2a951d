/** memory-graph's public API. */
export { createMemoryGraph, type MemoryGraph, type MemoryGraphOptions } from "./app/create-memory-graph.js";
export { openPersistence, type BackendKind, type Persistence } from "./app/backends.js";
export { DEFAULT_SYSTEM_PROMPT } from "./app/defaults.js";
export { buildGraph, compileGraph, type MemoryGraphApp } from "./graph/build-graph.js";
export { createStateAnnotation, StateAnnotation, type MemoryState, type MemoryUpdate, type Candidate, type TurnStatus } from "./state/state.js";
export { NODE, type NodeId } from "./state/node-names.js";
export { parseTurnInput, turnInputSchema, type TurnInput } from "./state/turn-input.js";
export type { TurnResult } from "./state/turn-result.js";
export type { GraphDeps, MemoryMode } from "./nodes/deps.js";
export * from "./reducers/index.js";
export { DEFAULT_LIMITS, resolveLimits, type MemoryLimits, type LimitsInput } from "./memory/limits.js";
export type { MemoryContext } from "./memory/recall.js";
export type { MemoryScope } from "./memory/scope.js";
export { MemoryGraphError, type ErrorKind } from "./errors.js";
