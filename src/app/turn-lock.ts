import { randomUUID } from "node:crypto";
import type Database from "better-sqlite3";
import type pg from "pg";
import type { RedisClientType } from "redis";
import { MemoryGraphError, messageOf } from "../errors.js";
import { log } from "../logger.js";
import { writeWhenFree } from "../memory/backends/sqlite-write.js";
import { currentHolder, isProvablyGone, type LeaseHolder } from "./lease-holder.js";
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

/**
 * Lease-based locks (SQLite, Redis). The holder renews its lease every third of `leaseMs` while the
 * turn runs. A lease whose holder is provably gone (see `isProvablyGone`) is taken over at once;
 * any other outlives a crashed holder by at most `leaseMs`.
 */
export interface LeaseLockOptions extends TurnLockOptions {
  leaseMs?: number;
  /** Who this process is, as recorded in its leases (default: `currentHolder()`). */
  holder?: LeaseHolder;
}

const DEFAULT_WAIT_MS = 60_000;
/**
 * SQLite is shared by processes of one machine only, whose crashes the pid check sees at once; the
 * long lease spares a busy database's renewals (they wait on its write lock) from running late.
 */
const DEFAULT_SQLITE_LEASE_MS = 10_000;
/** Redis is shared across machines: a short lease lets others in about a second after renewals stop. */
const DEFAULT_REDIS_LEASE_MS = 1_500;
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

/** Polls `tryAcquire` with jittered backoff until it succeeds or `waitMs` passes. */
async function acquire(threadId: string, waitMs: number, tryAcquire: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (let delay = 2; ; delay = Math.min(delay * 2, 50)) {
    if (await tryAcquire()) return;
    if (Date.now() >= deadline) throw timeout(waitMs);
    await new Promise((resolve) => setTimeout(resolve, delay / 2 + Math.random() * delay));
  }
}

/**
 * Runs `work` while renewing a lease every third of `leaseMs`, then releases it. `renew` answers
 * whether the lease was still this turn's: one that ran out (the process stalled past it) and was
 * taken is reported, since another turn of the thread may now run beside this one.
 */
async function holdLease<T>(leaseMs: number, renew: () => Promise<boolean>, release: () => Promise<void>, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => {
    renew().then(
      (held) => held || log.error("turn_lock.lease_lost", { lease_ms: leaseMs }),
      (error: unknown) => log.warn("turn_lock.renew_failed", { error: messageOf(error) }),
    );
  }, Math.max(10, Math.floor(leaseMs / 3)));
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
    await release().catch((error: unknown) => log.warn("turn_lock.release_failed", { error: messageOf(error) }));
  }
}

function tookOver(backend: string, previous: { host?: unknown; pid?: unknown }): void {
  log.warn("turn_lock.taken_over", { backend, previous_host: previous.host, previous_pid: previous.pid, reason: "holder_gone" });
}

/**
 * SQLite: a row per held thread in `turn_locks` of the given database (the file the checkpoints
 * live in), claimed by one upsert that takes the row only when it is missing, its lease has
 * expired, or it still holds the token of a holder found gone, so the database's write lock
 * decides between processes. Each row carries its holder's token, host and pid, and a lease
 * renewed while the turn runs.
 */
export function sqliteTurnLock(db: Database.Database, options: LeaseLockOptions = {}): TurnLock {
  const local = new KeyedLock();
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  const leaseMs = options.leaseMs ?? DEFAULT_SQLITE_LEASE_MS;
  const holder = options.holder ?? currentHolder();
  createTurnLockTable(db);
  const claim = db.prepare(
    `INSERT INTO turn_locks (thread_id, token, expires_at, host, pid) VALUES (@threadId, @token, @expiresAt, @host, @pid)
     ON CONFLICT (thread_id) DO UPDATE SET token = excluded.token, expires_at = excluded.expires_at, host = excluded.host, pid = excluded.pid
     WHERE turn_locks.expires_at < @now OR turn_locks.token = @goneToken`,
  );
  const current = db.prepare("SELECT token, host, pid FROM turn_locks WHERE thread_id = ?");
  const renew = db.prepare("UPDATE turn_locks SET expires_at = ? WHERE thread_id = ? AND token = ?");
  const release = db.prepare("DELETE FROM turn_locks WHERE thread_id = ? AND token = ?");
  const tryClaim = async (threadId: string, token: string, goneToken: string | null): Promise<boolean> => {
    const now = Date.now();
    const row = { threadId, token, expiresAt: now + leaseMs, now, goneToken, host: holder.host, pid: holder.pid };
    return (await writeWhenFree(db, () => claim.run(row))).changes === 1;
  };
  return {
    run: (threadId, work) =>
      local.run(threadId, async () => {
        const token = randomUUID();
        await acquire(threadId, waitMs, async () => {
          try {
            if (await tryClaim(threadId, token, null)) return true;
            const previous = current.get(threadId) as { token: string; host: string | null; pid: number | null } | undefined;
            if (!previous || !isProvablyGone(previous) || !(await tryClaim(threadId, token, previous.token))) return false;
            tookOver("sqlite", previous);
            return true;
          } catch (error) {
            if ((error as { code?: string }).code === "SQLITE_BUSY") return false;
            throw error;
          }
        });
        return holdLease(
          leaseMs,
          async () => (await writeWhenFree(db, () => renew.run(Date.now() + leaseMs, threadId, token))).changes === 1,
          async () => void (await writeWhenFree(db, () => release.run(threadId, token))),
          work,
        );
      }),
  };
}

/** Creates `turn_locks`, adding the holder columns to a table made before they existed. */
function createTurnLockTable(db: Database.Database): void {
  db.exec("CREATE TABLE IF NOT EXISTS turn_locks (thread_id TEXT PRIMARY KEY, token TEXT NOT NULL, expires_at INTEGER NOT NULL, host TEXT, pid INTEGER)");
  const columns = new Set((db.pragma("table_info(turn_locks)") as { name: string }[]).map((column) => column.name));
  for (const [name, type] of [["host", "TEXT"], ["pid", "INTEGER"]] as const) {
    if (columns.has(name)) continue;
    try {
      db.exec(`ALTER TABLE turn_locks ADD COLUMN ${name} ${type}`);
    } catch (error) {
      // Another process opening the same file added it first.
      if (!/duplicate column/i.test(messageOf(error))) throw error;
    }
  }
}

const RENEW_IF_OWNER = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const DELETE_IF_OWNER = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const REPLACE_IF_HELD_BY =
  "if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 else return 0 end";

/** The holder a Redis lease value names, or null for a value not written as JSON (an older version's bare token). */
function holderOf(value: string): { host?: unknown; pid?: unknown } | null {
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed !== null && typeof parsed === "object" ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * Redis: `SET key value NX PX lease` per thread, the value naming this turn's token, host and pid;
 * the lease is renewed while the turn runs, and renewal, release and taking over from a holder
 * found gone act only when the key still holds the value seen (a Lua compare-and-set), so a turn
 * never frees a lock another took after its lease ran out.
 */
export function redisTurnLock(client: RedisClientType, options: LeaseLockOptions & { keyPrefix?: string } = {}): TurnLock {
  const local = new KeyedLock();
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  const leaseMs = options.leaseMs ?? DEFAULT_REDIS_LEASE_MS;
  const prefix = options.keyPrefix ?? "mg";
  const holder = options.holder ?? currentHolder();
  return {
    run: (threadId, work) =>
      local.run(threadId, async () => {
        const key = `${prefix}:turn-lock:${threadId}`;
        const value = JSON.stringify({ token: randomUUID(), host: holder.host, pid: holder.pid });
        await acquire(threadId, waitMs, async () => {
          if ((await client.set(key, value, { condition: "NX", expiration: { type: "PX", value: leaseMs } })) === "OK") return true;
          const previous = await client.get(key);
          const previousHolder = previous === null ? null : holderOf(previous);
          if (previous === null || !isProvablyGone(previousHolder)) return false;
          const replaced = await client.eval(REPLACE_IF_HELD_BY, { keys: [key], arguments: [previous, value, String(leaseMs)] });
          if (replaced !== 1) return false;
          tookOver("redis", previousHolder ?? {});
          return true;
        });
        return holdLease(
          leaseMs,
          async () => (await client.eval(RENEW_IF_OWNER, { keys: [key], arguments: [value, String(leaseMs)] })) === 1,
          async () => void (await client.eval(DELETE_IF_OWNER, { keys: [key], arguments: [value] })),
          work,
        );
      }),
  };
}
