import "dotenv/config";
import fs from "node:fs";
import { createMemoryGraph } from "../app/create-memory-graph.js";
import { optionsFromEnv } from "../app/options-from-env.js";
import { loadEnv, type Env, logLevelFromEnv } from "../config.js";
import { setLogLevel, setLogSink } from "../logger.js";
import { collectGarbage } from "../memory/gc.js";
import { flagsOrExit } from "./args.js";
import { exitOnStartFailure } from "./fail.js";

/**
 * `npm run gc [-- --keep 20]`: makes the summaries answered turns left due (a process that died
 * or was throttled after the reply; with the configured model, else by rules), expires idle
 * sessions' windows, prunes checkpoints to the newest `--keep` (default CHECKPOINT_KEEP) per
 * thread, applies event retention, deletes store items whose TTL ran out and removes orphaned
 * index rows on the configured backend, then prints the counts as one JSON line. Idempotent and
 * safe while the service runs: each thread is collected under the same turn lock as turns.
 */
const args = flagsOrExit(process.argv.slice(2), { keep: { type: "string" } }, "usage: npm run gc [-- --keep N]");
setLogSink((line) => process.stderr.write(`${line}\n`));
// The library is quiet by default; an entry point logs at LOG_LEVEL (info unless set), a failed start included.
setLogLevel(logLevelFromEnv() ?? "info");
let env: Env;
try {
  env = loadEnv({ ...process.env, ...(args.keep === undefined ? {} : { CHECKPOINT_KEEP: args.keep }) });
} catch (error) {
  exitOnStartFailure("gc.start_failed", error);
}
setLogLevel(env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL);
const backend = env.MEMORY_BACKEND;
const base = { backend, keep: env.CHECKPOINT_KEEP };

if (backend === "memory" || (backend === "sqlite" && !fs.existsSync(env.SQLITE_PATH))) {
  console.log(JSON.stringify({ ...base, note: `nothing to collect: no ${backend === "memory" ? "stored memory" : `file at ${env.SQLITE_PATH}`}` }));
} else {
  // The memory graph as the service builds it: a due summary is made as its turn would have made it.
  const memory = await createMemoryGraph(optionsFromEnv(env)).catch((error: unknown) => exitOnStartFailure("gc.start_failed", error));
  const persistence = memory.persistence;
  try {
    const counts = persistence.gc
      ? await collectGarbage(persistence.gc, {
          upkeep: (threadId) => memory.finishUpkeep(threadId),
          now: new Date(),
          sessionTtlSeconds: env.SESSION_TTL_SECONDS,
          checkpointKeep: env.CHECKPOINT_KEEP,
          retention: { maxEventsPerUser: env.MAX_EVENTS_PER_USER, eventRetentionDays: env.EVENT_RETENTION_DAYS },
        })
      : { note: `nothing to collect on the ${backend} backend` };
    console.log(JSON.stringify({ ...base, ...counts }));
  } finally {
    await memory.close();
  }
}
