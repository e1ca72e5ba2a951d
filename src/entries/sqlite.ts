import "./env-log-level.js";

/**
 * `memory-graph/sqlite`: one SQLite file as a LangGraph checkpointer and store, and the turn lock
 * that keeps one writer per thread across the processes sharing the file. `openSqlite({ path })`
 * opens all three together.
 */
export { openSqlite, type SqlitePersistence } from "../app/backends.js";
export { sqliteTurnLock, type LeaseLockOptions, type TurnLock } from "../app/turn-lock.js";
export { SqliteCheckpointer } from "../memory/backends/sqlite-checkpointer.js";
export { SqliteStore, type SqliteStoreOptions } from "../memory/backends/sqlite-store.js";
export { sqliteGcTarget } from "../memory/gc.js";
