import type pg from "pg";
import { messageOf } from "../../errors.js";
import { log } from "../../logger.js";
import type { TurnLock } from "../../memory/ports/persistence.js";
import { KeyedLock } from "../shared/keyed-lock.js";
import { DEFAULT_WAIT_MS, timeout, type TurnLockOptions } from "../shared/lease-lock.js";

/** First key of every advisory lock we take, so ours never collide with other users' locks. */
export const ADVISORY_LOCK_CLASS = 0x4d47;

/**
 * Postgres: a session-level advisory lock on (ADVISORY_LOCK_CLASS, hashtext(thread id)), held on a
 * connection of `pool` for the whole turn, so the pool needs one connection per thread in flight
 * beyond what the checkpointer and store use. A dropped connection frees the lock by itself, that of
 * a holder killed mid-turn too (the server ends the session when the socket closes).
 */
export function postgresTurnLock(pool: pg.Pool, options: TurnLockOptions = {}): TurnLock {
  const local = new KeyedLock();
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  return {
    run: (threadId, work) =>
      local.run(threadId, async () => {
        const client = await pool.connect();
        let broken: Error | undefined;
        try {
          await client.query(`SET lock_timeout = ${Math.max(1, Math.floor(waitMs))}`);
          try {
            await client.query("SELECT pg_advisory_lock($1, hashtext($2))", [ADVISORY_LOCK_CLASS, threadId]);
          } catch (error) {
            if ((error as { code?: string }).code === "55P03") throw timeout(waitMs, error);
            throw error;
          }
          await client.query("RESET lock_timeout");
          try {
            return await work();
          } finally {
            await client.query("SELECT pg_advisory_unlock($1, hashtext($2))", [ADVISORY_LOCK_CLASS, threadId]).catch((error: Error) => {
              broken = error; // Discarding the connection below frees the lock.
              log.warn("turn_lock.release_failed", { backend: "postgres", error: messageOf(error) });
            });
          }
        } finally {
          client.release(broken);
        }
      }),
  };
}
