import "./env-log-level.js";

/**
 * `memory-graph/redis`: short-term memory on plain Redis — a LangGraph checkpointer whose keys
 * expire with the session (`RedisCheckpointer.fromUrl(url, { ttlSeconds })`) and a lease turn lock.
 * Long-term memory needs a store beside it (`memory-graph/sqlite` or `memory-graph/postgres`).
 */
export { redisTurnLock, type LeaseLockOptions, type TurnLock } from "../app/turn-lock.js";
export { RedisCheckpointer, type RedisCheckpointerOptions } from "../memory/backends/redis-checkpointer.js";
