import "./env-log-level.js";

/**
 * `memory-graph/sqlite`: one SQLite file as a LangGraph checkpointer and store, and the turn lock
 * that keeps one writer per thread across the processes sharing the file. `openSqlite({ path })`
 * opens all three together.
 */
export type { TurnLock } from "../memory/ports/persistence.js";
export type { LeaseLockOptions } from "../storage/shared/lease-lock.js";
export { openSqlite, type SqlitePersistence } from "../storage/sqlite/open.js";
export { sqliteTurnLock } from "../storage/sqlite/turn-lock.js";
export { SqliteCheckpointer } from "../storage/sqlite/checkpointer.js";
export { SqliteStore, type SqliteStoreOptions } from "../storage/sqlite/store.js";
export { sqliteGcTarget } from "../storage/sqlite/gc-target.js";
export type { StoreTtlConfig } from "../storage/shared/ttl.js";
