import { randomUUID } from "node:crypto";
import type Database from "better-sqlite3";
import type { UserLock } from "../../memory/ports/persistence.js";
import { currentHolder, isProvablyGone } from "../shared/lease-holder.js";
import { acquire, DEFAULT_WAIT_MS, holdLease, userLockTimeout, type LeaseLockOptions } from "../shared/lease-lock.js";
import { writeWhenFree } from "./write-when-free.js";

const DEFAULT_SQLITE_LEASE_MS = 10_000;

interface LeaseRow {
  token: string;
  mode: "shared" | "waiting" | "exclusive";
  expires_at: number;
  host: string | null;
  pid: number | null;
}

/**
 * SQLite: a row per holder of a user's lock in `user_locks` (the file memory lives in), leased and
 * renewed like a turn lock's (`sqliteTurnLock`). A shared ask adds a `shared` row when no row of
 * another mode is live; an exclusive ask adds a `waiting` row, which keeps new shared asks out,
 * and turns it `exclusive` once no shared row is live. Every check and change is one write
 * transaction, so the database's write lock decides between processes; rows whose lease ran out or
 * whose holder is found gone are dropped on the way. A row is deleted when its holder is done, so
 * nothing names the user once forgetting them ends.
 */
export function sqliteUserLock(db: Database.Database, options: LeaseLockOptions = {}): UserLock {
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  const leaseMs = options.leaseMs ?? DEFAULT_SQLITE_LEASE_MS;
  const holder = options.holder ?? currentHolder();
  db.exec(
    `CREATE TABLE IF NOT EXISTS user_locks (user_key TEXT NOT NULL, token TEXT NOT NULL, mode TEXT NOT NULL,
       expires_at INTEGER NOT NULL, host TEXT, pid INTEGER, PRIMARY KEY (user_key, token))`,
  );
  const rows = db.prepare("SELECT token, mode, expires_at, host, pid FROM user_locks WHERE user_key = ?");
  const drop = db.prepare("DELETE FROM user_locks WHERE user_key = ? AND token = ?");
  const put = db.prepare(
    `INSERT INTO user_locks (user_key, token, mode, expires_at, host, pid) VALUES (@key, @token, @mode, @expiresAt, @host, @pid)
     ON CONFLICT (user_key, token) DO UPDATE SET mode = excluded.mode, expires_at = excluded.expires_at`,
  );
  const renew = db.prepare("UPDATE user_locks SET expires_at = ? WHERE user_key = ? AND token = ?");

  /** One attempt, in one write transaction: whether the lock is now held in the mode asked. */
  const attempt = db.transaction((key: string, token: string, exclusive: boolean): boolean => {
    const now = Date.now();
    const others: LeaseRow[] = [];
    for (const row of rows.all(key) as LeaseRow[]) {
      if (row.token === token) continue;
      if (row.expires_at < now || isProvablyGone(row)) drop.run(key, row.token);
      else others.push(row);
    }
    if (others.some((row) => row.mode !== "shared")) return false;
    const mode = !exclusive ? "shared" : others.length === 0 ? "exclusive" : "waiting";
    put.run({ key, token, mode, expiresAt: now + leaseMs, host: holder.host, pid: holder.pid });
    return mode !== "waiting";
  });

  const hold = async <T>(key: string, exclusive: boolean, work: () => Promise<T>): Promise<T> => {
    const token = randomUUID();
    try {
      await acquire(key, waitMs, async () => {
        try {
          return await writeWhenFree(db, () => attempt.immediate(key, token, exclusive));
        } catch (error) {
          if ((error as { code?: string }).code === "SQLITE_BUSY") return false;
          throw error;
        }
      });
    } catch (error) {
      // A wait given up on: its `waiting` row must not keep the user's turns out.
      await writeWhenFree(db, () => drop.run(key, token)).catch(() => undefined);
      throw error instanceof Error && (error as { code?: string }).code === "TURN_LOCK_TIMEOUT" ? userLockTimeout(waitMs, error) : error;
    }
    return holdLease(
      leaseMs,
      async () => (await writeWhenFree(db, () => renew.run(Date.now() + leaseMs, key, token))).changes === 1,
      async () => void (await writeWhenFree(db, () => drop.run(key, token))),
      work,
    );
  };

  return {
    shared: (key, work) => hold(key, false, work),
    exclusive: (key, work) => hold(key, true, work),
  };
}
