import type { RateLimiterAbstract } from "rate-limiter-flexible";
import { MemoryGraphError, messageOf } from "../errors.js";
import type { BackendKind } from "../memory/ports/persistence.js";
import { useWal } from "../storage/sqlite/file-format.js";

/** Where request counts are kept: every worker and instance that shares it shares the limit. */
export type RateLimitEngine = "redis" | "postgres" | "sqlite" | "memory";

/** What `openRateLimitCounter` needs: the limit, and the storage settings the service already has. */
export interface RateLimitCounterOptions {
  /** Requests per key in each window. */
  points: number;
  /** Length of a window in seconds (default 60). */
  windowSeconds?: number;
  backend: BackendKind;
  sqlitePath?: string;
  databaseUrl?: string;
  redisUrl?: string;
}

/** A request counter of rate-limiter-flexible on shared storage, and how to let it go. */
export interface RateLimitCounter {
  engine: RateLimitEngine;
  limiter: RateLimiterAbstract;
  close(): Promise<void>;
}

const KEY_PREFIX = "mg_rate";
const TABLE = "mg_rate_limits";

/** The storage the counts go to: Redis when REDIS_URL is set, else the backend's own database. */
export function rateLimitEngineOf(options: Pick<RateLimitCounterOptions, "backend" | "sqlitePath" | "redisUrl" | "databaseUrl">): RateLimitEngine {
  if (options.redisUrl) return "redis";
  if (options.backend === "postgres" && options.databaseUrl) return "postgres";
  if (options.backend !== "memory" && options.sqlitePath && options.sqlitePath !== ":memory:") return "sqlite";
  return "memory";
}

/**
 * Opens the request counter the rate limit of `npm start` uses. The counts live where every worker
 * and instance sees them — Redis (one atomic Lua increment per request) when REDIS_URL is set, else
 * a table of the service's Postgres database or SQLite file (one atomic upsert) — so the limit holds
 * in total, not per process. Only the memory backend (one process, no shared storage) counts in the
 * process. A store that cannot be reached fails with RATE_LIMIT_STORE_FAILED naming the variable.
 */
export async function openRateLimitCounter(options: RateLimitCounterOptions): Promise<RateLimitCounter> {
  const engine = rateLimitEngineOf(options);
  const base = { points: options.points, duration: options.windowSeconds ?? 60, keyPrefix: KEY_PREFIX };
  const flexible = await import("rate-limiter-flexible");
  try {
    switch (engine) {
      case "redis": {
        const { connectRedis } = await import("../storage/redis/connect.js");
        const client = await connectRedis(options.redisUrl ?? "", { errorEvent: "rate_limit.redis_error" });
        const limiter = new flexible.RateLimiterRedis({ ...base, storeClient: client, useRedisPackage: true });
        return { engine, limiter, close: async () => void (await client.quit().catch(() => client.destroy())) };
      }
      case "postgres": {
        const { default: pg } = await import("pg");
        const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 4, connectionTimeoutMillis: 1000, query_timeout: 1000 });
        pool.on("error", () => undefined);
        const limiter = await createdTable((done) => new flexible.RateLimiterPostgres({ ...base, storeClient: pool, storeType: "pool", tableName: TABLE, clearExpiredByTimeout: true }, done));
        return { engine, limiter, close: () => pool.end() };
      }
      case "sqlite": {
        const { default: Database } = await import("better-sqlite3");
        const db = new Database(options.sqlitePath);
        useWal(db);
        // Workers and instances on one file wait for each other's write instead of failing.
        db.pragma("busy_timeout = 5000");
        const limiter = await createdTable((done) => new flexible.RateLimiterSQLite({ ...base, storeClient: db, storeType: "better-sqlite3", tableName: TABLE, clearExpiredByTimeout: true }, done));
        return { engine, limiter, close: async () => void db.close() };
      }
      case "memory":
        return { engine, limiter: new flexible.RateLimiterMemory(base), close: async () => undefined };
    }
  } catch (cause) {
    const field = engine === "redis" ? "REDIS_URL" : engine === "postgres" ? "DATABASE_URL" : "SQLITE_PATH";
    throw new MemoryGraphError("RATE_LIMIT_STORE_FAILED", `${field}: the rate limit's counter cannot be opened (${engine}): ${messageOf(cause)}`, { kind: "system", field, cause });
  }
}

/**
 * Makes a database limiter and waits until its table exists. Instances starting at once may race to
 * create it (Postgres then fails one CREATE TABLE IF NOT EXISTS): the loser tries again, and finds it.
 */
async function createdTable<T>(make: (done: (error?: unknown) => void) => T, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await new Promise<T>((resolve, reject) => {
        const limiter: T = make((error) => (error ? reject(error instanceof Error ? error : new Error(messageOf(error))) : resolve(limiter)));
      });
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
}
