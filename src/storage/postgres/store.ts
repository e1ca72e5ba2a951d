import pg from "pg";
import { surviveConnectionLoss } from "./connection-loss.js";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { GetOperation, Operation, OperationResults } from "@langchain/langgraph-checkpoint";
import { isGet, isUpsert, runOf } from "./batch-runs.js";
import { MemoryGraphError } from "../../errors.js";
import { log } from "../../logger.js";
import { deleteItem, deletePrefix, listNamespaces, readItem, readItems, refreshExpiry, sweepExpired, writeItems } from "./items.js";
import { countItems, deleteOrphanedVectors, listTenantLabels, listTranscripts, listUsers } from "./port-queries.js";
import { ensureVectorIndex, migrate } from "./schema.js";
import { searchRanked, searchRecent, type SearchContext } from "./search.js";
import { poolConfig, schemaIdentifier } from "./sql.js";
import { assertTenantNamespace, pathOf, prefixRange } from "../shared/namespace.js";
import { DEFAULT_INDEX_CACHE_LIMITS, PostgresIndexCache, type IndexCacheLimits } from "./index-cache.js";
import { pruneDeletions } from "./change-feed.js";
import type { HybridOptions } from "../../memory/ranking/hybrid.js";
import { embedQueries, preparePuts, TenantStore, validateOperation } from "../shared/store-common.js";
import { embedDeferredItems } from "./deferred-vectors.js";
import { rankingSettingsOf, type RankingSettings } from "../shared/ranking-settings.js";
import { FULL_STORE_SUPPORTS, type StoredTranscript, type StoredUserPage, type StorePort, type StoreSupports, type UserListQuery } from "../../memory/ports/store.js";
import { refreshesOnRead, TtlSweeper, validateTtlConfig, type ReadTime, type StoreTtlConfig } from "../shared/ttl.js";

/** Options of `PostgresStore`. */
export interface PostgresStoreOptions {
  /** Schema holding the store's tables (created when missing); default `public`. */
  schema?: string;
  /** Embeds each item's indexed text at write time and each query at search time; no vectors without it. */
  embeddings?: EmbeddingsInterface;
  /** `auto` (default) uses pgvector when the server has it; `off` never does (lexical only). */
  vectors?: "auto" | "off";
  /** Paths of the value to index ("text", "meta.title", "parts[*].text"); default: `text`, else every string. */
  indexFields?: string[];
  /** Cosine similarity below which a vector is not a hit; default 0.45. */
  minVectorSimilarity?: number;
  /** The newest items compared by vector when `recentCandidates` is unset; default 200. */
  candidateLimit?: number;
  /** The best lexical candidates whose vectors are compared with the query's; default 50. */
  vectorCandidates?: number;
  /** The most recent items whose vectors are compared with the query's (found lexically or not); default 100. */
  recentCandidates?: number;
  /** Pseudo-relevance feedback, neighbour context and fusion weights (see `rankHybrid`). */
  hybrid?: HybridOptions;
  /** Bounds of the in-process recall index (see `PostgresIndexCache`); defaults `DEFAULT_INDEX_CACHE_LIMITS`. */
  indexCache?: Partial<IndexCacheLimits>;
  /** Time to live, as LangGraph's `PostgresStore` takes it (`defaultTtl`, `refreshOnRead`, `sweepIntervalMinutes`; minutes). */
  ttl?: StoreTtlConfig;
}

/**
 * LangGraph `BaseStore` on PostgreSQL (node-postgres pool), with the SQLite store's behaviour:
 * - every namespace, search prefix and list prefix begins with a valid tenant
 *   (`assertTenantNamespace`); a batch holding one bad operation throws before changing anything;
 * - a batch runs in one transaction, operations in order (a get after a put sees the put);
 * - values are JSON objects (jsonb); `createdAt` survives updates, `updatedAt` is the last write;
 * - a search with a query ranks with the ranking every engine shares (see `searchRanked`: an
 *   in-process recall index per prefix, kept coherent across processes) and returns only hits,
 *   each with a 0..1 `score` and `ranking` provenance; without a query it returns items
 *   newest-updated first;
 * - an item with a TTL (its put's `ttl`, else `ttl.defaultTtl`) is invisible to get, search, list
 *   and count from the moment it expires; a get or search returning it pushes its expiry back by
 *   its TTL (`refreshTtl`, else `ttl.refreshOnRead`, default true); `sweepExpiredItems` deletes it.
 * Without pgvector the store works lexically and logs one warning at `setup()` when embeddings
 * were configured. It implements the whole store port (`supports`: every capability).
 */
export class PostgresStore extends TenantStore implements StorePort {
  readonly supports: Readonly<StoreSupports> = FULL_STORE_SUPPORTS;
  private readonly schema: string;
  private readonly embeddings: EmbeddingsInterface | undefined;
  private readonly wantVectors: boolean;
  private readonly indexFields: string[] | undefined;
  private readonly settings: RankingSettings;
  private readonly indexedDims = new Set<number>();
  private readonly cache: PostgresIndexCache;
  private readonly ttl: StoreTtlConfig | undefined;
  private readonly sweeper = new TtlSweeper("postgres", () => this.sweepExpiredItems());
  private ownsPool = false;
  private ready: Promise<{ vectors: boolean }> | undefined;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    options: PostgresStoreOptions = {},
  ) {
    super();
    this.schema = schemaIdentifier(options.schema ?? "public");
    this.embeddings = options.embeddings;
    this.wantVectors = options.vectors !== "off";
    this.indexFields = options.indexFields;
    validateTtlConfig(options.ttl);
    this.ttl = options.ttl;
    this.settings = rankingSettingsOf("PostgresStore", options);
    const limits = { ...DEFAULT_INDEX_CACHE_LIMITS, ...options.indexCache };
    if (![limits.maxItems, limits.maxCachedBytes + 1, limits.maxPrefixes, limits.maxRss + 1].every((n) => Number.isInteger(n) && n >= 1)) {
      throw new MemoryGraphError("INVALID_INPUT", "PostgresStore: the index cache's maxItems and maxPrefixes must be integers ≥ 1, maxCachedBytes and maxRss integers ≥ 0", {
        kind: "user",
        field: "indexCache",
      });
    }
    this.cache = new PostgresIndexCache(this.schema, limits, limits.snapshots ? pool : undefined);
  }

  /** A store on its own pool for `connectionString` (`DATABASE_URL`); `close()` ends the pool. */
  static fromConnString(connectionString: string, options: PostgresStoreOptions & { maxConnections?: number } = {}): PostgresStore {
    const pool = new pg.Pool(poolConfig(connectionString, options.maxConnections ?? 10));
    surviveConnectionLoss([pool]);
    const store = new PostgresStore(pool, options);
    store.ownsPool = true;
    return store;
  }

  /**
   * Creates or migrates the schema (idempotent, safe from many processes at once) and finds out
   * whether vectors can be used. Also run by the first operation. Resolves to whether they are.
   */
  async setup(): Promise<{ vectors: boolean }> {
    this.assertOpen();
    this.ready ??= migrate(this.pool, this.schema, this.wantVectors, this.indexFields).then(
      (result) => {
        if (!result.vectors && this.embeddings) {
          const reason = this.wantVectors ? "the pgvector extension is not available" : "vectors are turned off";
          log.warn("store.vectors_unavailable", { backend: "postgres", reason: `${reason}; search is lexical only` });
        }
        log.info("store.ready", { backend: "postgres", schema: this.schema, vectors: result.vectors && Boolean(this.embeddings) });
        this.sweeper.start(this.ttl);
        return result;
      },
      (error: unknown) => {
        this.ready = undefined;
        throw error;
      },
    );
    return this.ready;
  }

  /** Ends use of the store; ends the pool only when `fromConnString` made it. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.sweeper.stop();
    await this.cache.settled();
    if (this.ownsPool) await this.pool.end();
  }

  override async start(): Promise<void> {
    await this.setup();
  }

  override async stop(): Promise<void> {
    await this.close();
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    operations.forEach(validateOperation);
    const { vectors } = await this.setup();
    const useVectors = vectors && this.embeddings !== undefined;
    const puts = await preparePuts(operations, { indexFields: this.indexFields, embeddings: useVectors ? this.embeddings : undefined });
    const queryVectors = await embedQueries(operations, useVectors ? this.embeddings : undefined);
    for (const put of puts.values()) if (put.vector) await this.ensureIndex(put.vector.length);
    const ctx: SearchContext = { schema: this.schema, vectors: useVectors, settings: this.settings, cache: this.cache };
    // A batch that only reads, or writes in one statement (a run of upserts: an import's messages),
    // needs no transaction of its own: BEGIN and COMMIT would cost two round trips.
    const oneStatement = !operations.some((op) => "value" in op) || runOf(operations, 0, isUpsert).length === operations.length;
    return this.transaction(oneStatement, async (db) => {
      const results: unknown[] = [];
      const now = Date.now();
      const expiring: string[] = [];
      const readAt = (op: Operation): ReadTime<string> => ({ now, expiring: refreshesOnRead(op, this.ttl) ? expiring : undefined });
      for (let i = 0; i < operations.length; ) {
        const op = operations[i] as Operation;
        // A run of upserts (distinct keys) is one statement, a run of gets (refreshing alike) another; in order all the same.
        const upserts = runOf(operations, i, isUpsert);
        const refreshes = refreshesOnRead(op, this.ttl);
        const gets = runOf(operations, i, (o): o is GetOperation => isGet(o) && refreshesOnRead(o, this.ttl) === refreshes);
        if (upserts.length > 0) {
          await writeItems(db, this.schema, vectors, upserts.map((put) => puts.get(put) ?? { op: put, text: "", terms: "" }), this.ttl);
          results.push(...upserts.map(() => undefined));
          i += upserts.length;
          continue;
        }
        if (gets.length > 1) {
          results.push(...(await readItems(db, this.schema, gets, readAt(op))));
          i += gets.length;
          continue;
        }
        i += 1;
        if ("value" in op) results.push(await deleteItem(db, this.schema, op));
        else if ("namespacePrefix" in op) {
          results.push(op.query ? await searchRanked(db, ctx, op, queryVectors.get(op.query), readAt(op)) : await searchRecent(db, this.schema, op, readAt(op)));
        } else if ("key" in op) results.push(await readItem(db, this.schema, op.namespace, op.key, readAt(op)));
        else results.push(await listNamespaces(db, this.schema, op, now));
      }
      // What the reads returned that has a TTL lives on from now.
      if (expiring.length > 0) await refreshExpiry(db, this.schema, expiring, Date.now());
      return results as OperationResults<Op>;
    });
  }

  /**
   * Deletes every item whose TTL has run out (vectors go with them; each deletion logged for the
   * recall indexes of every process); returns how many (LangGraph's `PostgresStore.sweepExpiredItems`).
   */
  async sweepExpiredItems(): Promise<number> {
    await this.setup();
    this.assertOpen();
    const swept = await sweepExpired(this.pool, this.schema, Date.now());
    if (swept > 0) log.info("store.ttl_swept", { backend: "postgres", items: swept });
    return swept;
  }

  /** Deletes every item under `prefix` (a tenant first) with its vector and the recall index snapshots holding it; returns how many items. */
  async deleteNamespacePrefix(prefix: string[]): Promise<number> {
    assertTenantNamespace(prefix, { field: "prefix" });
    await this.setup();
    const deleted = await deletePrefix(this.pool, this.schema, prefix);
    log.info("store.prefix_deleted", { depth: prefix.length, items: deleted });
    return deleted;
  }

  /** Computes and writes the vectors `deferVector` left out, onto the rows as they were read (see `StorePort.embedDeferred`); 0 without pgvector. */
  async embedDeferred(namespace: string[], keys: readonly string[]): Promise<number> {
    assertTenantNamespace(namespace);
    const embeddings = (await this.setup()).vectors ? this.embeddings : undefined;
    if (!embeddings || keys.length === 0) return 0;
    return embedDeferredItems(this.pool, this.schema, { path: pathOf(namespace), keys, embeddings, indexFields: this.indexFields, ensureIndex: (dims) => this.ensureIndex(dims) });
  }

  /** How many items are stored in exactly `namespace` (not below it): one index count. */
  async countNamespace(namespace: string[]): Promise<number> {
    assertTenantNamespace(namespace);
    await this.setup();
    return countItems(this.pool, this.schema, pathOf(namespace));
  }

  /**
   * Builds the in-process recall index of `prefix` when it is missing (and brings it up to date
   * when it is not), so that the first ranked search under it does not. A prefix too large to
   * index is left alone.
   */
  async warmSearch(prefix: string[]): Promise<void> {
    assertTenantNamespace(prefix, { field: "namespacePrefix" });
    await this.setup();
    const { from, to } = prefixRange(prefix);
    await this.transaction(true, (db) => this.cache.indexOf(db, from, to));
  }

  /** Deletes vector rows whose item is gone (none while the foreign key holds) and deletion-log rows older than a day; returns the count. */
  async removeOrphanedIndexRows(): Promise<number> {
    const { vectors } = await this.setup();
    return (await pruneDeletions(this.pool, this.schema)) + (vectors ? await deleteOrphanedVectors(this.pool, this.schema) : 0);
  }

  /** Resolves once the recall index snapshots this store has scheduled are written (or skipped, or failed and logged). */
  indexSnapshotsSettled = (): Promise<void> => this.cache.settled();

  /** A page of the users of tenant label `tenant`, with their activity and counts: one grouped scan of their range. */
  async listUsers(tenant: string, query: UserListQuery): Promise<StoredUserPage> {
    assertTenantNamespace([tenant]);
    return this.setup().then(() => listUsers(this.pool, this.schema, tenant, query));
  }

  /** The transcripts under `prefix`, counted and dated: one grouped scan of its range. */
  async listTranscripts(prefix: string[]): Promise<StoredTranscript[]> {
    assertTenantNamespace(prefix);
    return this.setup().then(() => listTranscripts(this.pool, this.schema, prefix));
  }

  /** The distinct first labels (tenants) of stored namespaces. */
  async listTenants(): Promise<string[]> {
    await this.setup();
    return listTenantLabels(this.pool, this.schema);
  }

  /** Runs `work` on one connection, in a transaction unless `autocommit` (only reads, or one statement: each its own transaction). */
  private async transaction<T>(autocommit: boolean, work: (db: pg.PoolClient) => Promise<T>): Promise<T> {
    this.assertOpen();
    const client = await this.pool.connect();
    try {
      if (autocommit) return await work(client);
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      if (!autocommit) await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  private async ensureIndex(dims: number): Promise<void> {
    if (this.indexedDims.has(dims)) return;
    await ensureVectorIndex(this.pool, this.schema, dims);
    this.indexedDims.add(dims);
  }

  private assertOpen(): void {
    if (this.closed) throw new MemoryGraphError("STORE_CLOSED", "the Postgres store is closed", { kind: "system" });
  }
}
