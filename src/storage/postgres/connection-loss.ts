import type pg from "pg";
import { log } from "../../logger.js";

/** Idle connections lost within this long of a warning are logged at debug. */
const IDLE_LOSS_BURST_MS = 30_000;

/**
 * Keeps `pools` (and the process) alive through lost connections. An idle connection the server
 * drops (restart, failover, a terminated backend) is replaced on next use; without a listener,
 * node-postgres would throw the error out of the process. A server going away drops every idle
 * connection at once: one warning for the burst, the rest at debug. A connection that drops while
 * a caller holds it between queries (a transaction, a turn lock) fails the caller's next query,
 * and the pool discards it on release.
 */
export function surviveConnectionLoss(pools: readonly pg.Pool[]): void {
  let warnedAt = Number.NEGATIVE_INFINITY;
  const idleConnectionLost = (error: Error) => {
    const now = Date.now();
    const burst = now - warnedAt < IDLE_LOSS_BURST_MS;
    if (!burst) warnedAt = now;
    (burst ? log.debug : log.warn)("postgres_idle_connection_lost", { error: error.message });
  };
  for (const pool of pools) {
    pool.on("error", idleConnectionLost);
    pool.on("connect", (client) => client.on("error", (error) => log.debug("postgres_connection_lost", { error: error.message })));
  }
}
