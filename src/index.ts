import "./entries/env-log-level.js";

/**
 * `memory-graph`: the memory graph — `createMemoryGraph`, `buildGraph`/`compileGraph` for a graph of
 * your own, the state annotation, types, errors and logging. Storage engines, retention and the
 * reducers alone have their own entries (`memory-graph/sqlite`, `/postgres`, `/redis`,
 * `/retention`, `/reducers`); importing this one loads no storage driver until a backend is opened.
 */
export { createMemoryGraph, type MemoryGraph, type MemoryGraphOptions, type TurnOptions } from "./app/create-memory-graph.js";
export { openPersistence, type BackendKind, type BackendOptions, type Persistence } from "./app/backends.js";
export { DEFAULT_EMBEDDINGS_MODEL, DEFAULT_SYSTEM_PROMPT } from "./app/defaults.js";
export { buildGraph, compileGraph, type MemoryGraphApp } from "./graph/build-graph.js";
export { createStateAnnotation, StateAnnotation, type MemoryState, type MemoryUpdate, type Candidate, type TurnStatus } from "./graph/state/state.js";
export { NODE, type NodeId } from "./graph/state/node-names.js";
export { parseTurnInput, turnInputSchema, type TurnInput } from "./graph/state/turn-input.js";
export type { TurnResult } from "./graph/nodes/build-candidate.js";
export type { GraphDeps, MemoryMode } from "./graph/nodes/deps.js";
export * from "./graph/reducers.js";
export { DEFAULT_LIMITS, resolveLimits, type MemoryLimits, type LimitsInput } from "./memory/limits.js";
export type { MemoryContext } from "./memory/recall.js";
export type { MemoryScope } from "./memory/scope.js";
export type { ImportOptions, ImportResult } from "./app/memory-api.js";
export type { ImportInput, ImportMessage, ImportSession, UserMemoryExport } from "./memory/import-schema.js";
export type { MemoryHit, MemorySearchRequest, MemorySearchResult } from "./memory/search.js";
export { ERROR_CODES, MemoryGraphError, type ErrorCode, type ErrorKind, type StorageDependency } from "./errors.js";
export {
  jsonLogger,
  setLogger,
  setLogLevel,
  silentLogger,
  withLogger,
  type LogFields,
  type Logger,
  type LoggerOption,
  type LogLevel,
} from "./logger.js";
/** The local hashed n-gram embedder (no download), for `embeddings` when vectors are wanted offline. */
export { HashedNgramEmbeddings } from "./memory/ranking/hash-embedder.js";
