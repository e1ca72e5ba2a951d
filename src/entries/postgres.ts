import "./env-log-level.js";

/**
 * `memory-graph/postgres`: a Postgres database as a LangGraph checkpointer (`PostgresSaver` with our
 * serializer and pruning) and store (full-text, and vectors where pgvector is installed), and an
 * advisory-lock turn lock. `openPostgres({ url })` opens all three together.
 */
export type { TurnLock } from "../memory/ports/persistence.js";
export type { TurnLockOptions } from "../storage/shared/lease-lock.js";
export { openPostgres, type PostgresPersistence } from "../storage/postgres/open.js";
export { postgresTurnLock } from "../storage/postgres/turn-lock.js";
export { PostgresCheckpointer } from "../storage/postgres/checkpointer.js";
export { PostgresStore, type PostgresStoreOptions } from "../storage/postgres/store.js";
export { postgresGcTarget } from "../storage/postgres/gc-target.js";
export type { StoreTtlConfig } from "../storage/shared/ttl.js";
