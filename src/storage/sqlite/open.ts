import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { log } from "../../logger.js";
import type { GcTarget, Persistence } from "../../memory/ports/persistence.js";
import { ONE_DATABASE_TRAITS } from "../shared/traits.js";
import type { SqliteCheckpointer } from "./checkpointer.js";
import { useWal } from "./file-format.js";
import { DEFAULT_SQLITE_PATH, openWhenFree, prepareSqliteDirectory, sqliteOpenFailed } from "./open-checks.js";
import type { SqliteStore } from "./store.js";
import type { StoreTtlConfig } from "../shared/ttl.js";
import type { RecallCacheBounds } from "../shared/sized-lru.js";

/** What `openSqlite` opens: the store, checkpointer and turn lock of one SQLite file. */
export interface SqlitePersistence extends Persistence {
  kind: "sqlite";
  checkpointer: SqliteCheckpointer;
  store: SqliteStore;
  gc: GcTarget;
}

/**
 * Opens (creating it and its folder when missing) a SQLite file — default `./data/memory.db` — as
 * a checkpointer, a store and a turn lock sharing one connection (WAL, 5 s busy timeout, synchronous
 * NORMAL); `close()` closes the file. The store embeds with `embeddings` when given (lexical
 * ranking without), and gives its items `ttl` (LangGraph's store TTL) when given. A file that
 * cannot be used fails with SQLITE_PATH_UNUSABLE.
 */
export async function openSqlite(
  options: { path?: string; embeddings?: EmbeddingsInterface | null; ttl?: StoreTtlConfig; indexCache?: RecallCacheBounds } = {},
): Promise<SqlitePersistence> {
  const file = options.path ?? DEFAULT_SQLITE_PATH;
  const embeddings = options.embeddings ?? undefined;
  const [{ default: Database }, { SqliteCheckpointer }, { SqliteStore }, { sqliteGcTarget }, { sqliteTurnLock }, { sqliteUserLock }] = await Promise.all([
    import("better-sqlite3"),
    import("./checkpointer.js"),
    import("./store.js"),
    import("./gc-target.js"),
    import("./turn-lock.js"),
    import("./user-lock.js"),
  ]);
  prepareSqliteDirectory(file);
  let opened: { db: InstanceType<typeof Database>; checkpointer: InstanceType<typeof SqliteCheckpointer>; store: InstanceType<typeof SqliteStore> };
  try {
    opened = await openWhenFree(() => {
      const db = new Database(file);
      try {
        useWal(db);
        db.pragma("busy_timeout = 5000");
        db.pragma("synchronous = NORMAL");
        return { db, checkpointer: new SqliteCheckpointer(db), store: new SqliteStore(db, { embeddings, ttl: options.ttl, indexCache: options.indexCache }) };
      } catch (error) {
        db.close();
        throw error;
      }
    });
  } catch (cause) {
    throw sqliteOpenFailed(file, cause);
  }
  const { db, checkpointer, store } = opened;
  const turnLock = sqliteTurnLock(db);
  const gc = sqliteGcTarget(checkpointer, store, turnLock);
  log.info("persistence_opened", { backend: "sqlite", path: file, vectors: embeddings ? "on" : "off" });
  let closed = false;
  return {
    kind: "sqlite",
    traits: ONE_DATABASE_TRAITS,
    checkpointer,
    store,
    turnLock,
    userLock: sqliteUserLock(db),
    gc,
    dropSessionHistory: (threadId) => checkpointer.pruneThread(threadId, 1),
    ping: async () => {
      // Down the path a request takes (the in-process index and its version check, the full-text
      // table), not only the connection: a store that cannot serve a search is not ready.
      await store.search(["readyz"], { query: "ready", limit: 1 });
    },
    close: async () => {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
