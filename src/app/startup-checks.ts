import { probePostgres } from "../storage/postgres/probe.js";
import { probeRedis } from "../storage/redis/probe.js";
import { required } from "../storage/shared/open-checks.js";
import { DEFAULT_SQLITE_PATH, probeSqlite } from "../storage/sqlite/open-checks.js";

/**
 * Checks that run while storage opens, so a wrong setting fails fast with one error naming the
 * variable to fix and the cause (never a password), instead of a hang or a driver's stack. The
 * probes load no driver until a check needs it, so `npm start` can run `checkStorage` before the
 * graph's modules load (seconds on a cold start).
 */

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
