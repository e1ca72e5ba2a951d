import fs from "node:fs";
import path from "node:path";
import { MemoryGraphError, messageOf } from "../../errors.js";

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

/** Fails with SQLITE_PATH_UNUSABLE unless `file` opens as a writable SQLite database. */
export async function probeSqlite(file: string): Promise<void> {
  prepareSqliteDirectory(file);
  const { default: Database } = await import("better-sqlite3");
  let db: InstanceType<typeof Database> | undefined;
  try {
    db = new Database(file);
    db.pragma("journal_mode = WAL");
  } catch (cause) {
    throw sqliteOpenFailed(file, cause);
  } finally {
    db?.close();
  }
}
