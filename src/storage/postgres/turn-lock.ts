import type pg from "pg";
import { messageOf } from "../../errors.js";
import { log } from "../../logger.js";
import type { TurnLock, UserLock } from "../../memory/ports/persistence.js";
import { KeyedLock } from "../shared/keyed-lock.js";
import { DEFAULT_WAIT_MS, timeout, userLockTimeout, type TurnLockOptions } from "../shared/lease-lock.js";

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
    run: (threadId, work) => local.run(threadId, () => holdAdvisoryLock(pool, { key: [ADVISORY_LOCK_CLASS, threadId], shared: false, waitMs }, work)),
  };
}

/** First key of the advisory locks of users (`postgresUserLock`), apart from threads' so that a user key never meets a thread's. */
export const USER_LOCK_CLASS = 0x4d48;

/**
 * Postgres: a session-level advisory lock on (USER_LOCK_CLASS, hashtext(user key)), shared by turns
 * and exclusive for forgetting, held on a connection of `pool` while the work runs. The server
 * queues a shared ask behind an exclusive one already waiting, so a busy user cannot starve
 * forgetting. `pool` must not be the turn lock's: a turn holds this lock while it waits for its
 * thread's, so sharing one pool could leave every connection waiting for another.
 */
export function postgresUserLock(pool: pg.Pool, options: TurnLockOptions = {}): UserLock {
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  const hold = <T>(userKey: string, shared: boolean, work: () => Promise<T>) =>
    holdAdvisoryLock(pool, { key: [USER_LOCK_CLASS, userKey], shared, waitMs, timedOut: userLockTimeout }, work);
  return {
    shared: (userKey, work) => hold(userKey, true, work),
    exclusive: (userKey, work) => hold(userKey, false, work),
  };
}

interface AdvisoryLockOptions {
  key: [number, string];
  shared: boolean;
  waitMs: number;
  timedOut?: (waitMs: number, cause: unknown) => Error;
}

/** Runs `work` holding an advisory lock on a connection of `pool`, taken within `waitMs` or failing with TURN_LOCK_TIMEOUT. */
async function holdAdvisoryLock<T>(pool: pg.Pool, options: AdvisoryLockOptions, work: () => Promise<T>): Promise<T> {
  const { key, waitMs } = options;
  const [lock, unlock] = options.shared ? ["pg_advisory_lock_shared", "pg_advisory_unlock_shared"] : ["pg_advisory_lock", "pg_advisory_unlock"];
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(`SET lock_timeout = ${Math.max(1, Math.floor(waitMs))}`);
    try {
      await client.query(`SELECT ${lock}($1, hashtext($2))`, key);
    } catch (error) {
      if ((error as { code?: string }).code === "55P03") throw (options.timedOut ?? timeout)(waitMs, error);
      throw error;
    }
    await client.query("RESET lock_timeout");
    try {
      return await work();
    } finally {
      await client.query(`SELECT ${unlock}($1, hashtext($2))`, key).catch((error: Error) => {
        broken = error; // Discarding the connection below frees the lock.
        log.warn("turn_lock.release_failed", { backend: "postgres", error: messageOf(error) });
      });
    }
  } finally {
    client.release(broken);
  }
}
