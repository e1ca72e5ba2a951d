import { randomUUID } from "node:crypto";
import type Database from "better-sqlite3";
import type pg from "pg";
import type { RedisClientType } from "redis";
import { MemoryGraphError, messageOf } from "../errors.js";
import { log } from "../logger.js";
import { writeWhenFree } from "../memory/backends/sqlite-write.js";
import { KeyedLock } from "./thread-lock.js";

/**
 * One thread, one writer: `run(threadId, work)` runs `work` while no other turn of the same thread
 * runs — in this process (always, through `KeyedLock`, so a process sends one waiter per thread to
 * the backend) and, for the cross-process locks, in every process sharing the backend.
 */
export interface TurnLock {
  run<T>(threadId: string, work: () => Promise<T>): Promise<T>;
}

/** How long a turn waits for its thread before failing with `TURN_LOCK_TIMEOUT`. */
export interface TurnLockOptions {
  waitMs?: number;
}

/** Lease-based locks (SQLite, Redis): the lease outlives a crashed holder by at most `leaseMs`. */
export interface LeaseLockOptions extends TurnLockOptions {
  leaseMs?: number;
}

const DEFAULT_WAIT_MS = 60_000;
const DEFAULT_LEASE_MS = 30_000;
/** First key of every advisory lock we take, so ours never collide with other users' locks. */
export const ADVISORY_LOCK_CLASS = 0x4d47;

function timeout(waitMs: number, cause?: unknown): MemoryGraphError {
  return new MemoryGraphError("TURN_LOCK_TIMEOUT", `another turn of this session held it for over ${waitMs} ms`, {
    kind: "system",
    cause,
  });
}

/** In-process serialisation only (memory backend, or a single instance). */
export function inProcessTurnLock(): TurnLock {
  const local = new KeyedLock();
  return { run: (threadId, work) => local.run(threadId, work) };
}

/**
 * Postgres: a session-level advisory lock on (ADVISORY_LOCK_CLASS, hashtext(thread id)), held on a
 * connection of `pool` for the whole turn, so the pool needs one connection per thread in flight
 * beyond what the checkpointer and store use. A dropped connection frees the lock by itself.
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

/** Polls `tryAcquire` with jittered backoff until it succeeds or `waitMs` passes. */
async function acquire(threadId: string, waitMs: number, tryAcquire: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (let delay = 2; ; delay = Math.min(delay * 2, 50)) {
    if (await tryAcquire()) return;
    if (Date.now() >= deadline) throw timeout(waitMs);
    await new Promise((resolve) => setTimeout(resolve, delay / 2 + Math.random() * delay));
  }
}

/** Runs `work` while renewing a lease every third of `leaseMs`, then releases it. */
async function holdLease<T>(leaseMs: number, renew: () => Promise<void>, release: () => Promise<void>, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => {
    renew().catch((error: unknown) => log.warn("turn_lock.renew_failed", { error: messageOf(error) }));
  }, Math.max(10, Math.floor(leaseMs / 3)));
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
    await release().catch((error: unknown) => log.warn("turn_lock.release_failed", { error: messageOf(error) }));
  }
}

/**
 * SQLite: a row per held thread in `turn_locks` of the given database (the file the checkpoints
 * live in), claimed by one upsert that takes the row only when it is missing or its lease has
 * expired, so the database's write lock decides between processes. Each row carries its holder's
 * token and a lease renewed while the turn runs.
 */
export function sqliteTurnLock(db: Database.Database, options: LeaseLockOptions = {}): TurnLock {
  const local = new KeyedLock();
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  db.exec("CREATE TABLE IF NOT EXISTS turn_locks (thread_id TEXT PRIMARY KEY, token TEXT NOT NULL, expires_at INTEGER NOT NULL)");
  const claim = db.prepare(
    `INSERT INTO turn_locks (thread_id, token, expires_at) VALUES (?, ?, ?)
     ON CONFLICT (thread_id) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at WHERE turn_locks.expires_at < ?`,
  );
  const renew = db.prepare("UPDATE turn_locks SET expires_at = ? WHERE thread_id = ? AND token = ?");
  const release = db.prepare("DELETE FROM turn_locks WHERE thread_id = ? AND token = ?");
  return {
    run: (threadId, work) =>
      local.run(threadId, async () => {
        const token = randomUUID();
        await acquire(threadId, waitMs, async () => {
          try {
            const now = Date.now();
            return (await writeWhenFree(db, () => claim.run(threadId, token, now + leaseMs, now))).changes === 1;
          } catch (error) {
            if ((error as { code?: string }).code === "SQLITE_BUSY") return false;
            throw error;
          }
        });
        return holdLease(
          leaseMs,
          async () => void (await writeWhenFree(db, () => renew.run(Date.now() + leaseMs, threadId, token))),
          async () => void (await writeWhenFree(db, () => release.run(threadId, token))),
          work,
        );
      }),
  };
}

const RENEW_IF_OWNER = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const DELETE_IF_OWNER = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/**
 * Redis: `SET key token NX PX lease` per thread; the lease is renewed while the turn runs, and
 * renewal and release act only when the key still holds this turn's token (a Lua compare-and-set),
 * so a turn never frees a lock another took after its lease ran out.
 */
export function redisTurnLock(client: RedisClientType, options: LeaseLockOptions & { keyPrefix?: string } = {}): TurnLock {
  const local = new KeyedLock();
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const prefix = options.keyPrefix ?? "mg";
  return {
    run: (threadId, work) =>
      local.run(threadId, async () => {
        const key = `${prefix}:turn-lock:${threadId}`;
        const token = randomUUID();
        await acquire(threadId, waitMs, async () => (await client.set(key, token, { condition: "NX", expiration: { type: "PX", value: leaseMs } })) === "OK");
        return holdLease(
          leaseMs,
          async () => void (await client.eval(RENEW_IF_OWNER, { keys: [key], arguments: [token, String(leaseMs)] })),
          async () => void (await client.eval(DELETE_IF_OWNER, { keys: [key], arguments: [token] })),
          work,
        );
      }),
  };
}
