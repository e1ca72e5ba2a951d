import "./env-log-level.js";

/**
 * `memory-graph/postgres`: a Postgres database as a LangGraph checkpointer (`PostgresSaver` with our
 * serializer and pruning) and store (full-text, and vectors where pgvector is installed), and an
 * advisory-lock turn lock. `openPostgres({ url })` opens all three together.
 */
export { openPostgres, type PostgresPersistence } from "../app/backends.js";
export { postgresTurnLock, type TurnLock, type TurnLockOptions } from "../app/turn-lock.js";
export { PostgresCheckpointer } from "../memory/backends/postgres-checkpointer.js";
export { PostgresStore, type PostgresStoreOptions } from "../memory/backends/postgres-store.js";
export { postgresGcTarget } from "../memory/gc.js";
