import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { MemoryGraphError } from "../errors.js";
import { log } from "../logger.js";
import type { PostgresCheckpointer } from "../memory/backends/postgres-checkpointer.js";
import type { PostgresStore } from "../memory/backends/postgres-store.js";
import type { SqliteCheckpointer } from "../memory/backends/sqlite-checkpointer.js";
import type { SqliteStore } from "../memory/backends/sqlite-store.js";
import type { GcTarget } from "../memory/gc.js";
import {
  CONNECT_TIMEOUT_MS,
  DEFAULT_SQLITE_PATH,
  prepareSqliteDirectory,
  probePostgres,
  required,
  setupFailed,
  sqliteOpenFailed,
  unreachable,
} from "./startup-checks.js";
import { inProcessTurnLock, type TurnLock } from "./turn-lock.js";

export type BackendKind = "memory" | "sqlite" | "postgres" | "redis";

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
  /** The store's embedder; default the local hashed n-gram one, `null` for no vectors. */
  embeddings?: EmbeddingsInterface | null;
}

/** A checkpointer, a store and a per-thread turn lock, opened together and closed together. */
export interface Persistence {
  kind: BackendKind;
  checkpointer: BaseCheckpointSaver;
  store: BaseStore;
  /** One thread, one writer: across processes where the backend is shared. */
  turnLock: TurnLock;
  /** What `npm run gc` collects on this backend (null where there is nothing to collect). */
  gc: GcTarget | null;
  /** Checks storage answers (for readiness probes). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** What `openSqlite` opens: the store, checkpointer and turn lock of one SQLite file. */
export interface SqlitePersistence extends Persistence {
  kind: "sqlite";
  checkpointer: SqliteCheckpointer;
  store: SqliteStore;
  gc: GcTarget;
}

/** What `openPostgres` opens: the store, checkpointer and turn lock of one Postgres database. */
export interface PostgresPersistence extends Persistence {
  kind: "postgres";
  checkpointer: PostgresCheckpointer;
  store: PostgresStore;
  gc: GcTarget;
}

/**
 * Opens the persistence a backend names. `memory` is for tests (nothing survives the process);
 * `sqlite` keeps checkpoints and the long-term store in one file; `postgres` serves many
 * instances; `redis` keeps sessions in Redis (expiring by TTL) and long-term memory in Postgres
 * when DATABASE_URL is set, else in the SQLite file. Drivers load on first use. A server that does
 * not answer within CONNECT_TIMEOUT_MS, or a file that cannot be used, fails with one
 * MemoryGraphError whose `field` names the variable to fix (STORAGE_UNREACHABLE,
 * STORAGE_SETUP_FAILED, SQLITE_PATH_UNUSABLE, CONFIG_INVALID).
 */
export async function openPersistence(options: BackendOptions): Promise<Persistence> {
  switch (options.backend) {
    case "memory": {
      const { InMemoryStore, MemorySaver } = await import("@langchain/langgraph");
      return {
        kind: "memory",
        checkpointer: new MemorySaver(),
        store: new InMemoryStore(),
        turnLock: inProcessTurnLock(),
        gc: null,
        ping: async () => undefined,
        close: async () => undefined,
      };
    }
    case "sqlite":
      return openSqlite({ path: options.sqlitePath, embeddings: options.embeddings });
    case "postgres":
      return openPostgres({ url: required(options.databaseUrl, "DATABASE_URL", "postgres"), embeddings: options.embeddings });
    case "redis":
      return openRedis(options);
    default:
      throw new MemoryGraphError("BACKEND_UNKNOWN", `backend: unknown backend ${String(options.backend)}`, { kind: "system", field: "backend" });
  }
}

/** The embedder a store gets: the one given, none by default (lexical ranking; see `createEmbeddings`). */
function storeEmbeddings(embeddings: EmbeddingsInterface | null | undefined): EmbeddingsInterface | undefined {
  return embeddings ?? undefined;
}

/**
 * Opens (creating it and its folder when missing) a SQLite file — default `./data/memory.db` — as
 * a checkpointer, a store and a turn lock sharing one connection; `close()` closes the file.
 */
export async function openSqlite(options: { path?: string; embeddings?: EmbeddingsInterface | null } = {}): Promise<SqlitePersistence> {
  const file = options.path ?? DEFAULT_SQLITE_PATH;
  const embeddings = storeEmbeddings(options.embeddings);
  const [{ default: Database }, { SqliteCheckpointer }, { SqliteStore }, { sqliteGcTarget }, { sqliteTurnLock }] = await Promise.all([
    import("better-sqlite3"),
    import("../memory/backends/sqlite-checkpointer.js"),
    import("../memory/backends/sqlite-store.js"),
    import("../memory/gc.js"),
    import("./turn-lock.js"),
  ]);
  prepareSqliteDirectory(file);
  let db: InstanceType<typeof Database> | undefined;
  let checkpointer: InstanceType<typeof SqliteCheckpointer>;
  let store: InstanceType<typeof SqliteStore>;
  try {
    db = new Database(file);
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 5000");
    db.pragma("synchronous = NORMAL");
    checkpointer = new SqliteCheckpointer(db);
    store = new SqliteStore(db, { embeddings });
  } catch (cause) {
    db?.close();
    throw sqliteOpenFailed(file, cause);
  }
  const turnLock = sqliteTurnLock(db);
  const gc = sqliteGcTarget(db, checkpointer, store, turnLock);
  log.info("persistence_opened", { backend: "sqlite", path: file, vectors: embeddings ? "on" : "off" });
  let closed = false;
  return {
    kind: "sqlite",
    checkpointer,
    store,
    turnLock,
    gc,
    ping: async () => {
      db.prepare("SELECT 1").get();
    },
    close: async () => {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}

async function openPostgresLongTerm(url: string, embeddings: EmbeddingsInterface | undefined) {
  const [{ default: pg }, { PostgresStore }, { postgresTurnLock }] = await Promise.all([
    import("pg"),
    import("../memory/backends/postgres-store.js"),
    import("./turn-lock.js"),
  ]);
  await probePostgres(url);
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // A held advisory lock pins a connection, so locks get their own pool.
  const lockPool = new pg.Pool({ connectionString: url, max: 5 });
  // An idle connection the server drops (restart, failover) is replaced on next use; without a
  // listener, node-postgres would throw the error out of the process.
  for (const p of [pool, lockPool]) p.on("error", (error) => log.warn("postgres_idle_connection_lost", { error: error.message }));
  const store = new PostgresStore(pool, { embeddings });
  try {
    await store.setup();
  } catch (cause) {
    await Promise.all([pool.end(), lockPool.end()]);
    throw setupFailed("Postgres", "DATABASE_URL", url, cause);
  }
  return { pool, lockPool, store, turnLock: postgresTurnLock(lockPool) };
}

/**
 * Connects to a Postgres database (creating the tables when missing) as a checkpointer, a store
 * and a turn lock; `close()` ends the connection pools.
 */
export async function openPostgres(options: { url: string; embeddings?: EmbeddingsInterface | null }): Promise<PostgresPersistence> {
  const { url } = options;
  const embeddings = storeEmbeddings(options.embeddings);
  const [{ PostgresCheckpointer }, { postgresGcTarget }] = await Promise.all([
    import("../memory/backends/postgres-checkpointer.js"),
    import("../memory/gc.js"),
  ]);
  const { pool, lockPool, store, turnLock } = await openPostgresLongTerm(url, embeddings);
  const checkpointer = new PostgresCheckpointer(pool);
  try {
    await checkpointer.setup();
  } catch (cause) {
    await Promise.all([pool.end(), lockPool.end()]);
    throw setupFailed("Postgres", "DATABASE_URL", url, cause);
  }
  log.info("persistence_opened", { backend: "postgres" });
  let closed = false;
  return {
    kind: "postgres",
    checkpointer,
    store,
    turnLock,
    gc: postgresGcTarget(checkpointer, store, turnLock),
    ping: async () => {
      await pool.query("SELECT 1");
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.all([pool.end(), lockPool.end()]);
    },
  };
}

async function openRedis(options: BackendOptions): Promise<Persistence> {
  const [{ RedisCheckpointer }, { redisTurnLock }] = await Promise.all([
    import("../memory/backends/redis-checkpointer.js"),
    import("./turn-lock.js"),
  ]);
  const redisUrl = required(options.redisUrl, "REDIS_URL", "redis");
  const checkpointer = await RedisCheckpointer.fromUrl(redisUrl, { ttlSeconds: options.sessionTtlSeconds, connectTimeoutMs: CONNECT_TIMEOUT_MS }).catch(
    (cause: unknown) => {
      throw unreachable("Redis", "REDIS_URL", redisUrl, (cause as { cause?: unknown }).cause ?? cause);
    },
  );
  let longTerm: Persistence;
  try {
    longTerm = options.databaseUrl
      ? await openPostgres({ url: options.databaseUrl, embeddings: options.embeddings })
      : await openSqlite({ path: options.sqlitePath, embeddings: options.embeddings });
  } catch (error) {
    await checkpointer.close();
    throw error;
  }
  log.info("persistence_opened", { backend: "redis", longTerm: options.databaseUrl ? "postgres" : "sqlite" });
  return {
    kind: "redis",
    checkpointer,
    store: longTerm.store,
    turnLock: redisTurnLock(checkpointer.client),
    // Sessions expire by their own TTL; the long-term store's retention is collected where it lives.
    gc: longTerm.gc,
    ping: async () => {
      await Promise.all([checkpointer.client.ping(), longTerm.ping()]);
    },
    close: async () => {
      await Promise.all([checkpointer.close(), longTerm.close()]);
    },
  };
}
