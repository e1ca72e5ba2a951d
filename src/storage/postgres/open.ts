import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { log } from "../../logger.js";
import type { GcTarget, Persistence } from "../../memory/ports/persistence.js";
import { setupFailed } from "../shared/open-checks.js";
import { ONE_DATABASE_TRAITS } from "../shared/traits.js";
import type { PostgresCheckpointer } from "./checkpointer.js";
import { surviveConnectionLoss } from "./connection-loss.js";
import { probePostgres } from "./probe.js";
import { poolConfig } from "./sql.js";
import type { PostgresStore } from "./store.js";
import type { RecallCacheBounds } from "../shared/sized-lru.js";
import type { StoreTtlConfig } from "../shared/ttl.js";

/** What `openPostgres` opens: the store, checkpointer and turn lock of one Postgres database. */
export interface PostgresPersistence extends Persistence {
  kind: "postgres";
  checkpointer: PostgresCheckpointer;
  store: PostgresStore;
  gc: GcTarget;
}

/**
 * Connects to a Postgres database (creating the tables when missing) as a checkpointer, a store
 * and a turn lock; `close()` ends the connection pools. A server that does not answer fails with
 * STORAGE_UNREACHABLE, a schema that cannot be prepared with STORAGE_SETUP_FAILED (both naming
 * DATABASE_URL, never its password). The store gives its items `ttl` (LangGraph's store TTL) when given.
 */
export async function openPostgres(options: {
  url: string;
  embeddings?: EmbeddingsInterface | null;
  ttl?: StoreTtlConfig;
  indexCache?: RecallCacheBounds;
}): Promise<PostgresPersistence> {
  const { url } = options;
  const embeddings = options.embeddings ?? undefined;
  const [{ default: pg }, { PostgresStore }, { PostgresCheckpointer }, { postgresTurnLock, postgresUserLock }, { postgresGcTarget }] = await Promise.all([
    import("pg"),
    import("./store.js"),
    import("./checkpointer.js"),
    import("./turn-lock.js"),
    import("./gc-target.js"),
  ]);
  await probePostgres(url);
  const pool = new pg.Pool(poolConfig(url, 10));
  // A held advisory lock pins a connection, so locks get their own pool; users' locks another one,
  // since a turn holds its user's while it waits for its thread's. A turn holds its user's through
  // its upkeep too (a summary made after the reply), so that pool is the larger.
  const lockPool = new pg.Pool(poolConfig(url, 5));
  const userLockPool = new pg.Pool(poolConfig(url, 10));
  const pools = [pool, lockPool, userLockPool];
  surviveConnectionLoss(pools);
  const store = new PostgresStore(pool, { embeddings, ttl: options.ttl, indexCache: options.indexCache });
  const checkpointer = new PostgresCheckpointer(pool);
  try {
    await store.setup();
    await checkpointer.setup();
  } catch (cause) {
    await Promise.all(pools.map((p) => p.end()));
    throw setupFailed("Postgres", "DATABASE_URL", url, cause);
  }
  const turnLock = postgresTurnLock(lockPool);
  log.info("persistence_opened", { backend: "postgres" });
  let closed = false;
  return {
    kind: "postgres",
    traits: ONE_DATABASE_TRAITS,
    checkpointer,
    store,
    turnLock,
    userLock: postgresUserLock(userLockPool),
    gc: postgresGcTarget(checkpointer, store, turnLock),
    dropSessionHistory: (threadId) => checkpointer.pruneThread(threadId, 1),
    ping: async () => {
      await pool.query("SELECT 1");
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.all(pools.map((p) => p.end()));
    },
  };
}
