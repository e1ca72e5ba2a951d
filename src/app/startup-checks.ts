import fs from "node:fs";
import path from "node:path";
import { MemoryGraphError, messageOf } from "../errors.js";

/**
 * Checks that run while storage opens, so a wrong setting fails fast with one error naming the
 * variable to fix and the cause (never a password), instead of a hang or a driver's stack. This
 * module loads no driver until a check needs it, so `npm start` can run `checkStorage` before the
 * graph's modules load (seconds on a cold start).
 */

/**
 * How long opening storage may wait for a server to answer before giving up: ample for a server
 * that is up (a connection takes milliseconds to a few hundred), short enough that a wrong URL
 * ends the start-up within seconds rather than after a platform's health-check timeout.
 */
export const CONNECT_TIMEOUT_MS = 3000;

/** Where the SQLite file goes when no path is given. */
export const DEFAULT_SQLITE_PATH = "./data/memory.db";

/** `host:port/db` of a connection URL: enough to tell which server, without credentials. */
export function targetOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host || "localhost"}${parsed.pathname.length > 1 ? parsed.pathname : ""}`;
  } catch {
    return "(unparseable URL)";
  }
}

/** Removes the password of `url` (as written and decoded) from `text`. */
export function withoutPassword(text: string, url: string): string {
  let password: string;
  try {
    password = new URL(url).password;
  } catch {
    return text;
  }
  if (!password) return text;
  let out = text.split(password).join("***");
  try {
    const decoded = decodeURIComponent(password);
    if (decoded) out = out.split(decoded).join("***");
  } catch {
    // a password with a stray % only appears as written
  }
  return out;
}

/** The cause of a connection that timed out: the server accepted (or never did) but did not answer. */
export function noAnswer(server: string, ms: number, cause?: unknown): Error {
  return new Error(`no answer within ${ms} ms (is it a ${server} server, reachable from here?)`, { cause });
}

/** `work`, or a rejection with `noAnswer` after `ms` (calling `onTimeout` first, to drop the half-open connection). */
export async function withDeadline<T>(work: Promise<T>, ms: number, server: string, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(noAnswer(server, ms));
    }, ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** STORAGE_UNREACHABLE: the server behind `variable` could not be connected to. */
export function unreachable(server: string, variable: string, url: string, cause: unknown): MemoryGraphError {
  const why = withoutPassword(messageOf(cause), url);
  return new MemoryGraphError("STORAGE_UNREACHABLE", `${variable}: cannot connect to ${server} at ${targetOf(url)}: ${why}`, {
    kind: "system",
    field: variable,
    cause,
  });
}

/** STORAGE_SETUP_FAILED: connected, but preparing the schema failed. */
export function setupFailed(server: string, variable: string, url: string, cause: unknown): MemoryGraphError {
  const why = withoutPassword(messageOf(cause), url);
  return new MemoryGraphError("STORAGE_SETUP_FAILED", `${variable}: cannot prepare ${server} at ${targetOf(url)}: ${why}`, {
    kind: "system",
    field: variable,
    cause,
  });
}

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

/** `value`, or CONFIG_INVALID naming the variable a backend needs. */
export function required(value: string | undefined, name: string, backend: string): string {
  if (value) return value;
  throw new MemoryGraphError("CONFIG_INVALID", `${name}: required by MEMORY_BACKEND=${backend}`, { kind: "system", field: name });
}

/**
 * Fails with STORAGE_UNREACHABLE unless a Postgres connection to `url` is ready (handshake and
 * authentication included) within CONNECT_TIMEOUT_MS. One connection of its own, not a pool's:
 * a pool's connection timeout would also bound the wait for a free client, which turns
 * legitimately wait on under load.
 */
export async function probePostgres(url: string): Promise<void> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on("error", () => undefined); // a late socket error after the deadline has nowhere to go
  const started = Date.now();
  try {
    // The driver's own timeout fires first (it also covers the handshake); this one is a backstop.
    await withDeadline(client.connect(), CONNECT_TIMEOUT_MS + 1000, "Postgres", () => void client.end().catch(() => undefined));
  } catch (cause) {
    const timedOut = Date.now() - started >= CONNECT_TIMEOUT_MS;
    throw unreachable("Postgres", "DATABASE_URL", url, timedOut ? noAnswer("Postgres", CONNECT_TIMEOUT_MS, cause) : cause);
  }
  await client.end();
}

/** Fails with STORAGE_UNREACHABLE unless Redis at `url` answers within CONNECT_TIMEOUT_MS. */
export async function probeRedis(url: string): Promise<void> {
  const { connectRedis } = await import("../memory/backends/redis-connect.js");
  const client = await connectRedis(url, { timeoutMs: CONNECT_TIMEOUT_MS }).catch((error: unknown) => {
    throw unreachable("Redis", "REDIS_URL", url, (error as { cause?: unknown }).cause ?? error);
  });
  client.destroy();
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

/**
 * The checks `openPersistence` makes before it opens a backend, alone: the same errors, without
 * loading the stores and checkpointers.
 */
export async function checkStorage(options: { backend: string; sqlitePath?: string; databaseUrl?: string; redisUrl?: string }): Promise<void> {
  const longTerm = () => (options.databaseUrl ? probePostgres(options.databaseUrl) : probeSqlite(options.sqlitePath ?? DEFAULT_SQLITE_PATH));
  switch (options.backend) {
    case "sqlite":
      return probeSqlite(options.sqlitePath ?? DEFAULT_SQLITE_PATH);
    case "postgres":
      return probePostgres(required(options.databaseUrl, "DATABASE_URL", "postgres"));
    case "redis":
      await probeRedis(required(options.redisUrl, "REDIS_URL", "redis"));
      return longTerm();
    default:
      return undefined;
  }
}
