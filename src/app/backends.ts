import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { MemoryGraphError } from "../errors.js";
import type { BackendKind, Persistence } from "../memory/ports/persistence.js";
import { required } from "../storage/shared/open-checks.js";
import type { RecallCacheBounds } from "../storage/shared/sized-lru.js";

export type { BackendKind, Persistence } from "../memory/ports/persistence.js";

export interface BackendOptions {
  backend: BackendKind;
  /** SQLite file holding checkpoints and the long-term store (sqlite; redis's long-term store). */
  sqlitePath?: string;
  /** Postgres connection string (postgres; redis's long-term store when set). */
  databaseUrl?: string;
  /** Redis URL of the short-term checkpointer (redis). */
  redisUrl?: string;
  /** Session TTL: Redis keys expire by themselves after it. */
  sessionTtlSeconds?: number;
  /** The store's embedder; none by default (lexical ranking; see `createEmbeddings`), `null` for none. */
  embeddings?: EmbeddingsInterface | null;
  /** Bounds of the store's in-process recall index cache (RECALL_CACHE_MB, RECALL_CACHE_MAX_RSS_MB); the engines' defaults when absent. */
  recallCache?: RecallCacheBounds;
}

/**
 * Opens the persistence a backend names, from the engine's folder (`src/storage/<engine>/open.ts`),
 * which loads its drivers on first use. `memory` is for tests (nothing survives the process);
 * `sqlite` keeps checkpoints and the long-term store in one file; `postgres` serves many
 * instances; `redis` keeps sessions in Redis (expiring by TTL) and long-term memory in Postgres
 * when DATABASE_URL is set, else in the SQLite file. A server that does not answer within
 * CONNECT_TIMEOUT_MS, or a file that cannot be used, fails with one MemoryGraphError whose `field`
 * names the variable to fix (STORAGE_UNREACHABLE, STORAGE_SETUP_FAILED, SQLITE_PATH_UNUSABLE,
 * CONFIG_INVALID).
 */
export async function openPersistence(options: BackendOptions): Promise<Persistence> {
  const { embeddings, recallCache: indexCache } = options;
  const sqlite = async () => (await import("../storage/sqlite/open.js")).openSqlite({ path: options.sqlitePath, embeddings, indexCache });
  const postgres = async (url: string) => (await import("../storage/postgres/open.js")).openPostgres({ url, embeddings, indexCache });
  switch (options.backend) {
    case "memory":
      return (await import("../storage/memory/open.js")).openMemory();
    case "sqlite":
      return sqlite();
    case "postgres":
      return postgres(required(options.databaseUrl, "DATABASE_URL", "postgres"));
    case "redis": {
      const { openRedis } = await import("../storage/redis/open.js");
      const { databaseUrl } = options;
      return openRedis({
        url: required(options.redisUrl, "REDIS_URL", "redis"),
        sessionTtlSeconds: options.sessionTtlSeconds,
        openLongTerm: databaseUrl ? () => postgres(databaseUrl) : sqlite,
        longTermKind: databaseUrl ? "postgres" : "sqlite",
      });
    }
    default:
      throw new MemoryGraphError("BACKEND_UNKNOWN", `backend: unknown backend ${String(options.backend)}`, { kind: "system", field: "backend" });
  }
}
