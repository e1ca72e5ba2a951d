import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import {
  type GetOperation,
  type Item,
  type Operation,
  type OperationResults,
  type SearchOperation,
} from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../../errors.js";
import { log } from "../../logger.js";
import type { HybridOptions } from "../../memory/ranking/hybrid.js";
import { FULL_STORE_SUPPORTS, type StoredTranscript, type StoredUserPage, type StorePort, type StoreSupports, type UserListQuery } from "../../memory/ports/store.js";
import { listNamespaces } from "./namespaces.js";
import { assertTenantNamespace, pathOf, prefixRange } from "../shared/namespace.js";
import { createStoreSchema, ITEM_COLUMNS, LIVE, type ItemRow } from "./schema.js";
import { rankingSettingsOf, type RankingSettings } from "../shared/ranking-settings.js";
import { searchRecent } from "./recent.js";
import { itemsOf, searchRanked } from "./search.js";
import { indexCacheOf, type IndexedWrite } from "./index-cache.js";
import { validateCacheBounds, type RecallCacheBounds } from "../shared/sized-lru.js";
import { statement } from "./statements.js";
import { deleteOrphanedIndexRows, deletePrefix, refreshExpiry, sweepExpired, writeItem } from "./writes.js";
import { listTranscripts } from "./transcripts.js";
import { listUsers } from "./users.js";
import { writeWhenFree } from "./write-when-free.js";
import { SLICED_BATCH_PUTS, SlicedWriter } from "./sliced-write.js";
import { embedQueries, preparePuts, TenantStore, validateOperation } from "../shared/store-common.js";
import { embedDeferredItems } from "./deferred-vectors.js";
import { refreshesOnRead, TtlSweeper, validateTtlConfig, type ReadTime, type StoreTtlConfig } from "../shared/ttl.js";

/** Options of `SqliteStore`. */
export interface SqliteStoreOptions {
  /** Embeds each item's indexed text at write time and each query at search time; no vectors without it. */
  embeddings?: EmbeddingsInterface;
  /** Paths of the value to index ("text", "meta.title", "parts[*].text"); default: `text`, else every string. */
  indexFields?: string[];
  /** Cosine similarity below which a vector is not a hit; default 0.45. */
  minVectorSimilarity?: number;
  /** Lexical candidates per query on the full-text (FTS5) path; default 200. */
  candidateLimit?: number;
  /** The best lexical candidates whose vectors are compared with the query's; default 50. */
  vectorCandidates?: number;
  /** The most recent items whose vectors are compared with the query's (found lexically or not); default 100. */
  recentCandidates?: number;
  /** Pseudo-relevance feedback, neighbour context and fusion weights (see `rankHybrid`). */
  hybrid?: HybridOptions;
  /** Time to live, as LangGraph's stores take it (`defaultTtl`, `refreshOnRead`, `sweepIntervalMinutes`; minutes). */
  ttl?: StoreTtlConfig;
  /** Persists searched prefixes' recall indexes, so a new connection reads them instead of every row (`IndexCache`); default true, never for `:memory:`. */
  indexSnapshots?: boolean;
  /** Bounds of the connection's in-process recall index cache (set by the first store on a connection; see `indexCacheOf`). */
  indexCache?: RecallCacheBounds;
}

/**
 * LangGraph `BaseStore` on SQLite (better-sqlite3), in `store_*` tables beside the checkpoint
 * tables of the same file. Invariants:
 * - every namespace, search prefix and list prefix begins with a valid tenant
 *   (`assertTenantNamespace`); a batch holding one bad operation throws before changing anything;
 * - a batch runs in one transaction, operations in order (a get after a put sees the put); a
 *   large batch of writes only is written in slices on a second connection (`SlicedWriter`), still
 *   one transaction;
 * - values are JSON objects; `createdAt` survives updates, `updatedAt` is the last write;
 * - a search with a query ranks hybridly (see `searchRanked`) and returns only hits, each with a
 *   0..1 `score` and `ranking` provenance; without a query it returns items newest-updated first;
 * - an item with a TTL (its put's `ttl`, else `ttl.defaultTtl`) is invisible to get, search, list
 *   and count from the moment it expires; a get or search returning it pushes its expiry back by
 *   its TTL (`refreshTtl`, else `ttl.refreshOnRead`, default true); `sweepExpiredItems` deletes it.
 * It implements the whole store port (`supports`: every capability).
 */
export class SqliteStore extends TenantStore implements StorePort {
  readonly supports: Readonly<StoreSupports> = FULL_STORE_SUPPORTS;
  private readonly embeddings: EmbeddingsInterface | undefined;
  private readonly indexFields: string[] | undefined;
  private readonly settings: RankingSettings;
  private readonly ttl: StoreTtlConfig | undefined;
  private readonly sweeper = new TtlSweeper("sqlite", () => this.sweepExpiredItems());
  private ownsDatabase = false;
  private readonly sliced: SlicedWriter | undefined;
  private ready = false;
  private closed = false;

  constructor(
    private readonly db: Database.Database,
    options: SqliteStoreOptions = {},
  ) {
    super();
    this.sliced = SlicedWriter.supports(db) ? new SlicedWriter(db.name) : undefined;
    this.embeddings = options.embeddings;
    this.indexFields = options.indexFields;
    validateTtlConfig(options.ttl);
    this.ttl = options.ttl;
    this.settings = rankingSettingsOf("SqliteStore", options);
    validateCacheBounds("SqliteStore", options.indexCache);
    indexCacheOf(db, options.indexCache);
    indexCacheOf(db).snapshots = options.indexSnapshots !== false && !db.memory;
  }

  /** Resolves once the recall index snapshots scheduled on this connection are written (or skipped, or failed and logged). */
  indexSnapshotsSettled = (): Promise<void> => indexCacheOf(this.db).settled();

  /** Opens (creating the folder and file when missing) a database file and sets the store up; `close()` closes the file. */
  static open(path: string, options: SqliteStoreOptions = {}): SqliteStore {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    const store = new SqliteStore(new Database(path), options);
    store.ownsDatabase = true;
    store.setup();
    return store;
  }

  /** Creates the tables when missing. Idempotent; also run by the first operation. */
  setup(): void {
    this.assertOpen();
    if (this.ready) return;
    createStoreSchema(this.db);
    this.ready = true;
    this.sweeper.start(this.ttl);
  }

  /** Ends use of the store; closes the database only when `open()` opened it. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.sweeper.stop();
    this.sliced?.close();
    if (this.ownsDatabase) this.db.close();
  }

  override start(): void {
    this.setup();
  }

  override stop(): void {
    this.close();
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    this.setup();
    operations.forEach(validateOperation);
    const puts = await preparePuts(operations, { indexFields: this.indexFields, embeddings: this.embeddings });
    const queryVectors = await embedQueries(operations, this.embeddings);
    this.assertOpen();
    const cache = indexCacheOf(this.db);
    if (this.sliced && operations.length >= SLICED_BATCH_PUTS && operations.every((op) => "value" in op)) {
      // A large batch of writes only (an import): one transaction, written without holding the event loop.
      await this.sliced.write(operations, puts, this.ttl);
      return operations.map(() => undefined) as OperationResults<Op>;
    }
    const writes: IndexedWrite[] = [];
    const expiring: number[] = [];
    const runAll = () => {
      writes.length = 0; // a write retried after SQLITE_BUSY starts over
      expiring.length = 0;
      const now = Date.now();
      return operations.map((op) => {
        if ("value" in op) {
          const write = writeItem(this.db, puts.get(op) ?? { op, text: "", terms: "" }, this.ttl);
          if (write) writes.push(write);
          return undefined;
        }
        const at: ReadTime = { now, expiring: refreshesOnRead(op, this.ttl) ? expiring : undefined };
        if ("namespacePrefix" in op) {
          // A search after a put in the same batch must see it: teach the cache first.
          cache.applyWrites(writes.splice(0));
          return this.searchOne(op, queryVectors.get(op.query ?? ""), at);
        }
        if ("key" in op) return this.read(op, at);
        return listNamespaces(this.db, op, now);
      });
    };
    // A lone read needs no transaction of its own (BEGIN and COMMIT cost more than a cached search).
    const loneRead = operations.length === 1 && puts.size === 0 && !operations.some((op) => "value" in op);
    // A batch that writes takes the write lock up front (BEGIN IMMEDIATE), so it never fails on a
    // stale read snapshot; while another process holds the lock it waits without blocking the loop.
    const writing = operations.some((op) => "value" in op);
    try {
      const results = (
        loneRead
          ? runAll()
          : writing
            ? await writeWhenFree(this.db, () => this.db.transaction(runAll).immediate())
            : this.db.transaction(runAll)()
      ) as OperationResults<Op>;
      cache.applyWrites(writes);
      // What the reads returned that has a TTL lives on from now (after the read: a write of its own).
      if (expiring.length > 0) await refreshExpiry(this.db, expiring, Date.now());
      return results;
    } catch (error) {
      // The transaction rolled back; writes already taught to the cache are no longer true.
      cache.clear();
      throw error;
    }
  }

  /** Deletes every item under `prefix` (a tenant first) with its full-text row, vector and recall index snapshots; returns how many items. */
  async deleteNamespacePrefix(prefix: string[]): Promise<number> {
    assertTenantNamespace(prefix, { field: "prefix" });
    this.setup();
    const deleted = await deletePrefix(this.db, prefix);
    indexCacheOf(this.db).clear();
    log.info("store.prefix_deleted", { depth: prefix.length, items: deleted });
    return deleted;
  }

  /**
   * Builds the in-process search index of `prefix` when it is missing, so that the first ranked
   * search under it does not; every later write of this connection keeps it current. Cheap when
   * it is built already (one `data_version` read). A prefix too large to cache is left to FTS5.
   */
  async warmSearch(prefix: string[]): Promise<void> {
    assertTenantNamespace(prefix, { field: "namespacePrefix" });
    this.assertOpen();
    this.setup();
    const { from, to } = prefixRange(prefix);
    indexCacheOf(this.db).indexOf(from, to);
  }

  /** Computes and writes the vectors `deferVector` left out, onto the rows as they were read (see `StorePort.embedDeferred`). */
  async embedDeferred(namespace: string[], keys: readonly string[]): Promise<number> {
    assertTenantNamespace(namespace);
    this.setup();
    const embeddings = this.embeddings;
    if (!embeddings || keys.length === 0) return 0;
    return embedDeferredItems(this.db, { path: pathOf(namespace), keys, embeddings, indexFields: this.indexFields, assertOpen: () => this.assertOpen() });
  }

  /** How many items are stored in exactly `namespace` (not below it): one index count. */
  async countNamespace(namespace: string[]): Promise<number> {
    assertTenantNamespace(namespace);
    this.assertOpen();
    this.setup();
    const row = statement(this.db, `SELECT count(*) AS n FROM store_items i WHERE i.ns_path = ? AND ${LIVE}`).get(pathOf(namespace), Date.now()) as { n: number };
    return row.n;
  }

  /** The distinct first labels (tenants) of stored namespaces, as stored (encoded). */
  async listTenants(): Promise<string[]> {
    this.setup();
    const rows = this.db.prepare("SELECT DISTINCT substr(ns_path, 1, instr(ns_path, char(31)) - 1) AS tenant FROM store_items").all() as { tenant: string }[];
    return rows.map((row) => row.tenant);
  }

  /** A page of the users of tenant label `tenant`, with their activity and counts: one grouped scan of their range. */
  async listUsers(tenant: string, query: UserListQuery): Promise<StoredUserPage> {
    assertTenantNamespace([tenant]);
    this.assertOpen();
    this.setup();
    return listUsers(this.db, tenant, query, Date.now());
  }

  /** The transcripts under `prefix`, counted and dated: one grouped scan of its range. */
  async listTranscripts(prefix: string[]): Promise<StoredTranscript[]> {
    assertTenantNamespace(prefix);
    this.assertOpen();
    this.setup();
    return listTranscripts(this.db, prefix, Date.now());
  }

  /** Deletes full-text and vector rows whose item is gone; returns how many. */
  async removeOrphanedIndexRows(): Promise<number> {
    this.setup();
    return deleteOrphanedIndexRows(this.db);
  }

  /** Deletes every item whose TTL has run out (with its full-text row and vector) in one transaction; returns how many (as LangGraph's `sweepExpiredItems`). */
  async sweepExpiredItems(): Promise<number> {
    this.assertOpen();
    this.setup();
    const swept = await sweepExpired(this.db, Date.now());
    if (swept > 0) indexCacheOf(this.db).clear();
    if (swept > 0) log.info("store.ttl_swept", { backend: "sqlite", items: swept });
    return swept;
  }

  private assertOpen(): void {
    if (this.closed || !this.db.open) {
      throw new MemoryGraphError("STORE_CLOSED", "the SQLite store is closed", { kind: "system" });
    }
  }

  private read(op: GetOperation, at: ReadTime): Item | null {
    const row = statement(this.db, `SELECT ${ITEM_COLUMNS} FROM store_items i WHERE i.ns_path = ? AND i.key = ? AND ${LIVE}`).get(
      pathOf(op.namespace),
      op.key,
      at.now,
    ) as ItemRow | undefined;
    return row ? (itemsOf([row], at)[0] ?? null) : null;
  }

  private searchOne(op: SearchOperation, queryVector: number[] | undefined, at: ReadTime) {
    return op.query ? searchRanked(this.db, op, queryVector, this.settings, at) : searchRecent(this.db, op, at);
  }
}
