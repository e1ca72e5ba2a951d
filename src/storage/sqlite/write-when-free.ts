import type Database from "better-sqlite3";

/** How long a write waits for another connection's write lock before failing with SQLITE_BUSY. */
export const DEFAULT_WRITE_WAIT_MS = 5_000;

/** Each connection's busy_timeout as first seen (PRAGMA statements act when prepared, so not kept prepared). */
const configuredWaits = new WeakMap<Database.Database, number>();

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/**
 * Runs `write` — one write transaction (`BEGIN IMMEDIATE`) or one writing statement on `db` —
 * without letting SQLite's busy handler sleep the process while another connection (another
 * worker) holds the write lock: the attempt runs with `busy_timeout` 0 and, when it meets the
 * lock, is tried again after a short jittered pause in which the event loop serves other turns.
 * After `waitMs` the SQLITE_BUSY error is thrown. The connection's `busy_timeout` (as it was at
 * its first such write) is put back after every attempt, so other statements wait as configured.
 *
 * `write` must be safe to run again after a busy failure: SQLite rolled it back, and any state
 * it keeps in JS must be rebuilt by the attempt itself.
 */
export async function writeWhenFree<T>(db: Database.Database, write: () => T, waitMs = DEFAULT_WRITE_WAIT_MS): Promise<T> {
  let configured = configuredWaits.get(db);
  if (configured === undefined) configuredWaits.set(db, (configured = Number(db.pragma("busy_timeout", { simple: true }))));
  const deadline = Date.now() + waitMs;
  for (let pause = 1; ; pause = Math.min(pause * 2, 16)) {
    db.exec("PRAGMA busy_timeout = 0"); // exec: a sixth of what pragma() costs
    try {
      return write();
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
    } finally {
      db.exec(`PRAGMA busy_timeout = ${configured}`);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.random() * pause));
  }
}
