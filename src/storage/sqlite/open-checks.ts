import fs from "node:fs";
import path from "node:path";
import { MemoryGraphError, messageOf } from "../../errors.js";
import { useWal } from "./file-format.js";

/** Where the SQLite file goes when no path is given. */
export const DEFAULT_SQLITE_PATH = "./data/memory.db";

function sqliteUnusable(file: string, why: string, cause?: unknown): MemoryGraphError {
  return new MemoryGraphError("SQLITE_PATH_UNUSABLE", `SQLITE_PATH: cannot use ${file}: ${why}`, { kind: "system", field: "SQLITE_PATH", cause });
}

function isDirectory(at: string): boolean {
  try {
    return fs.statSync(at).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Creates the missing directories above `file`, one level at a time: `mkdirSync(recursive)`
 * never returns for a path under /proc, and an ancestor that is a file deserves its own message.
 */
export function prepareSqliteDirectory(file: string): void {
  if (file === ":memory:") return;
  const dir = path.dirname(path.resolve(file));
  const missing: string[] = [];
  let at = dir;
  while (!fs.existsSync(at) && path.dirname(at) !== at) {
    missing.unshift(at);
    at = path.dirname(at);
  }
  if (!isDirectory(at)) throw sqliteUnusable(file, `${at} is not a directory`);
  for (const next of missing) {
    try {
      fs.mkdirSync(next);
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== "EEXIST" || !isDirectory(next)) throw sqliteUnusable(file, `cannot create directory ${next}: ${messageOf(cause)}`, cause);
    }
  }
}

/** SQLITE_PATH_UNUSABLE for a failure to open or prepare the file (SQLite's message omits the path). */
export function sqliteOpenFailed(file: string, cause: unknown): MemoryGraphError {
  const dir = path.dirname(path.resolve(file));
  const hint = isDirectory(file)
    ? "it is a directory"
    : (cause as { code?: unknown }).code === "SQLITE_CANTOPEN"
      ? `check that ${dir} is a writable directory`
      : "check that it is a writable SQLite database file";
  return sqliteUnusable(file, `${messageOf(cause)} (${hint})`, cause);
}

/** How long opening a file waits for other processes opening it at the same moment. */
const OPEN_BUSY_MS = 30_000;

/**
 * `open()`, again while it fails with SQLITE_BUSY, for up to 30 s. Several processes (workers,
 * instances) opening one file at once meet there: switching a new file to WAL, or creating the
 * schema, upgrades a read lock to a write lock, which SQLite refuses at once rather than wait (the
 * busy timeout cannot help where waiting could deadlock). Any other error is thrown at once.
 */
export async function openWhenFree<T>(open: () => T): Promise<T> {
  const started = Date.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return open();
    } catch (error) {
      if ((error as { code?: unknown }).code !== "SQLITE_BUSY" || Date.now() - started > OPEN_BUSY_MS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(25 * attempt, 250)));
    }
  }
}

/** Fails with SQLITE_PATH_UNUSABLE unless `file` opens as a writable SQLite database. */
export async function probeSqlite(file: string): Promise<void> {
  prepareSqliteDirectory(file);
  const { default: Database } = await import("better-sqlite3");
  try {
    await openWhenFree(() => {
      const db = new Database(file);
      try {
        useWal(db);
      } finally {
        db.close();
      }
    });
  } catch (cause) {
    throw sqliteOpenFailed(file, cause);
  }
}
