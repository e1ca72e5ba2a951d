import "./env-log-level.js";

/**
 * `memory-graph/redis`: short-term memory on plain Redis — a LangGraph checkpointer whose keys
 * expire with the session (`RedisCheckpointer.fromUrl(url, { ttlSeconds })`) and a lease turn lock.
 * Long-term memory needs a store beside it (`memory-graph/sqlite` or `memory-graph/postgres`).
 */
export type { TurnLock } from "../memory/ports/persistence.js";
export type { LeaseLockOptions } from "../storage/shared/lease-lock.js";
export { redisTurnLock } from "../storage/redis/turn-lock.js";
export { RedisCheckpointer, type RedisCheckpointerOptions } from "../storage/redis/checkpointer.js";
