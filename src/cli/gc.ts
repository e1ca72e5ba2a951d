import "dotenv/config";
import fs from "node:fs";
import Database from "better-sqlite3";
import pg from "pg";
import { postgresTurnLock, sqliteTurnLock } from "../app/turn-lock.js";
import { loadEnv } from "../config.js";
import { MemoryGraphError } from "../errors.js";
import { setLogLevel, setLogSink } from "../logger.js";
import { PostgresCheckpointer } from "../memory/backends/postgres-checkpointer.js";
import { PostgresStore } from "../memory/backends/postgres-store.js";
import { SqliteCheckpointer } from "../memory/backends/sqlite-checkpointer.js";
import { SqliteStore } from "../memory/backends/sqlite-store.js";
import { collectGarbage, DEFAULT_CHECKPOINT_KEEP, postgresGcTarget, sqliteGcTarget, type GcCounts, type GcOptions } from "../memory/gc.js";
import { parseArgs } from "./args.js";

/**
 * `npm run gc [-- --keep 20]`: expires idle sessions' windows, prunes checkpoints to the newest
 * `--keep` per thread, applies event retention and removes orphaned index rows on the configured
 * backend (sqlite or postgres), then prints the counts as one JSON line. Idempotent; safe while
 * the service runs (threads are taken under the same turn lock as turns).
 */
const args = parseArgs(process.argv.slice(2));
const env = loadEnv();
setLogSink((line) => process.stderr.write(`${line}\n`));
setLogLevel(env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL);
const keep = args.keep === undefined ? DEFAULT_CHECKPOINT_KEEP : Number(args.keep);
if (!Number.isInteger(keep) || keep < 1) {
  throw new MemoryGraphError("INVALID_INPUT", "--keep: must be an integer ≥ 1", { kind: "user", field: "keep" });
}
const options: GcOptions = {
  now: new Date(),
  sessionTtlSeconds: env.SESSION_TTL_SECONDS,
  checkpointKeep: keep,
  retention: { maxEventsPerUser: env.MAX_EVENTS_PER_USER, eventRetentionDays: env.EVENT_RETENTION_DAYS },
};

async function onSqlite(file: string): Promise<GcCounts> {
  const empty: GcCounts = { threads_scanned: 0, sessions_expired: 0, checkpoints_pruned: 0, events_dropped: 0, orphaned_index_rows: 0 };
  if (!fs.existsSync(file)) return empty;
  const db = new Database(file);
  db.pragma("busy_timeout = 5000");
  try {
    const target = sqliteGcTarget(db, new SqliteCheckpointer(db), new SqliteStore(db), sqliteTurnLock(db));
    return await collectGarbage(target, options);
  } finally {
    db.close();
  }
}

async function onPostgres(url: string): Promise<GcCounts> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  try {
    const checkpointer = new PostgresCheckpointer(pool);
    const store = new PostgresStore(pool);
    await Promise.all([checkpointer.setup(), store.setup()]);
    return await collectGarbage(postgresGcTarget(checkpointer, store, postgresTurnLock(pool)), options);
  } finally {
    await pool.end();
  }
}

const backend = env.MEMORY_BACKEND;
let counts: GcCounts | null = null;
if (backend === "sqlite") counts = await onSqlite(env.SQLITE_PATH);
else if (backend === "postgres") {
  if (!env.DATABASE_URL) throw new MemoryGraphError("CONFIG_INVALID", "DATABASE_URL: required by MEMORY_BACKEND=postgres", { kind: "system", field: "DATABASE_URL" });
  counts = await onPostgres(env.DATABASE_URL);
}
// memory keeps nothing between processes; redis sessions expire by their own TTL.
console.log(JSON.stringify({ backend, keep, ...(counts ?? { note: `nothing to collect on the ${backend} backend` }) }));
