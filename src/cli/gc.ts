import "dotenv/config";
import fs from "node:fs";
import { openPersistence } from "../app/backends.js";
import { loadEnv } from "../config.js";
import { setLogLevel, setLogSink } from "../logger.js";
import { collectGarbage } from "../memory/gc.js";
import { parseArgs } from "./args.js";

/**
 * `npm run gc [-- --keep 20]`: expires idle sessions' windows, prunes checkpoints to the newest
 * `--keep` (default CHECKPOINT_KEEP) per thread, applies event retention and removes orphaned
 * index rows on the configured backend, then prints the counts as one JSON line. Idempotent and
 * safe while the service runs: each thread is collected under the same turn lock as turns.
 */
const args = parseArgs(process.argv.slice(2));
const env = loadEnv({ ...process.env, ...(args.keep === undefined ? {} : { CHECKPOINT_KEEP: args.keep }) });
setLogSink((line) => process.stderr.write(`${line}\n`));
setLogLevel(env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL);
const backend = env.MEMORY_BACKEND;
const base = { backend, keep: env.CHECKPOINT_KEEP };

if (backend === "memory" || (backend === "sqlite" && !fs.existsSync(env.SQLITE_PATH))) {
  console.log(JSON.stringify({ ...base, note: `nothing to collect: no ${backend === "memory" ? "stored memory" : `file at ${env.SQLITE_PATH}`}` }));
} else {
  const persistence = await openPersistence({
    backend,
    sqlitePath: env.SQLITE_PATH,
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    sessionTtlSeconds: env.SESSION_TTL_SECONDS,
  });
  try {
    const counts = persistence.gc
      ? await collectGarbage(persistence.gc, {
          now: new Date(),
          sessionTtlSeconds: env.SESSION_TTL_SECONDS,
          checkpointKeep: env.CHECKPOINT_KEEP,
          retention: { maxEventsPerUser: env.MAX_EVENTS_PER_USER, eventRetentionDays: env.EVENT_RETENTION_DAYS },
        })
      : { note: `nothing to collect on the ${backend} backend` };
    console.log(JSON.stringify({ ...base, ...counts }));
  } finally {
    await persistence.close();
  }
}
