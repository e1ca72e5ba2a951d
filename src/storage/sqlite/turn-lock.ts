import { randomUUID } from "node:crypto";
import type Database from "better-sqlite3";
import { messageOf } from "../../errors.js";
import type { TurnLock } from "../../memory/ports/persistence.js";
import { KeyedLock } from "../shared/keyed-lock.js";
import { currentHolder, isProvablyGone } from "../shared/lease-holder.js";
import { acquire, DEFAULT_WAIT_MS, holdLease, tookOver, type LeaseLockOptions } from "../shared/lease-lock.js";
import { writeWhenFree } from "./write-when-free.js";

/**
 * SQLite is shared by processes of one machine only, whose crashes the pid check sees at once; the
 * long lease spares a busy database's renewals (they wait on its write lock) from running late.
 */
const DEFAULT_SQLITE_LEASE_MS = 10_000;

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
