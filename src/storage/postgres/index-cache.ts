import type pg from "pg";
import { log } from "../../logger.js";
import { buildRecallIndex, type TraitColumns } from "../../memory/ranking/index-source.js";
import { encodeIndexState, snapshotRefreshRows } from "../../memory/ranking/index-snapshot.js";
import type { RecallIndex } from "../../memory/ranking/recall-index.js";
import { applyItem, inWriteOrder, loadIndexSnapshot, writeIndexSnapshot, type AlsoRead, type ChangeRow, type SnapshotLoad } from "./index-snapshots.js";
import { changeFeed, changeRowOfFeed, MAX_DELTA, type FeedRow } from "./change-feed.js";
import { DEFAULT_RECALL_CACHE_BYTES, SizedLru } from "../shared/sized-lru.js";

/** Bounds of `PostgresIndexCache`. */
export interface IndexCacheLimits {
  /** A prefix holding more indexed items than this is not indexed (its ranked searches fail with a clear error). */
  maxItems: number;
  /** Memory of all cached prefixes' indexes, in bytes (`RecallIndex.bytes`); past it, the least recently used prefixes go. */
  maxCachedBytes: number;
  /** Cached prefixes; past it, the least recently used go. */
  maxPrefixes: number;
  /** Process RSS past which the cache gives memory back within `maxCachedBytes` (see `SizedLru`); 0: none. */
  maxRss: number;
  /** Whether each prefix's index is persisted (`store_index_snapshots`) and read back by a fresh process instead of rebuilt from every row; default true. */
  snapshots: boolean;
}

/** `DEFAULT_RECALL_CACHE_BYTES` of index memory, no RSS check (the service sets one: RECALL_CACHE_MAX_RSS_MB). */
export const DEFAULT_INDEX_CACHE_LIMITS: Readonly<IndexCacheLimits> = Object.freeze({ maxItems: 250_000, maxCachedBytes: DEFAULT_RECALL_CACHE_BYTES, maxPrefixes: 4096, maxRss: 0, snapshots: true });

/** A cache not synchronised for this long starts over (`store_deletions` rows are kept a day, see `pruneDeletions`). */
const MAX_IDLE_MS = 60 * 60 * 1000;

interface Entry {
  from: string;
  to: string;
  index: RecallIndex;
  /** The stamp of the snapshot last read or written for it; undefined when none is stored. */
  stamp?: string;
  /** Changes applied since that snapshot. */
  changed: number;
  /** Whether a change since that snapshot removed or rewrote a document it holds. */
  touched: boolean;
  /** Whether a write of its snapshot is scheduled or running. */
  writing?: boolean;
  /** Grows with every change applied to it (see `peek`). */
  version: number;
}

/** A cached index as `PostgresIndexCache.peek` found it, before synchronising. */
export interface Peeked {
  index: RecallIndex;
  key: string;
  /** The cache's entry, compared by identity. */
  entry: object;
  version: number;
}

/**
 * In-process `RecallIndex`es of the search prefixes (a user's sessions) recently ranked through one
 * Postgres store, kept coherent with every other process writing to the same database:
 * - before each use, one statement reads what was written or deleted since the last one: items
 *   whose `written_xid` is at least the `xmin` of the previous statement's snapshot (every
 *   transaction not yet visible then has an id at least that), and `store_deletions` alike; the
 *   new `xmin` comes from the same snapshot. Re-applying an item is idempotent. So a message
 *   committed by any process is ranked by the next search on any other (read-your-writes across
 *   instances), whatever order transactions commit in;
 * - an entry is built from the prefix's rows (`tokens` and trait columns, in id order) on first use;
 * - bounded (`SizedLru`): at most `maxCachedBytes` of index memory over all entries
 *   (`RecallIndex.bytes`) and `maxPrefixes` entries, least recently used (one user's prefix) evicted
 *   first; a prefix over `maxItems` is not indexed;
 * - synchronising and building run one at a time per cache, so a stale read never overwrites a
 *   newer one;
 * - with a `snapshotPool`, a missing entry is first read from its persisted snapshot and the changes
 *   since (`loadIndexSnapshot`), built from the rows only when there is none or it cannot be used
 *   (logged); after a build, or once `snapshotRefreshRows` changes or a removal or rewrite of a
 *   document it holds were applied, the entry's snapshot is written (again) on the pool, after the
 *   search that caused it has its answer: never on a search's path;
 * - a warm search may rank first and synchronise in its rows' statement (`peek`, `syncAlong`).
 */
export class PostgresIndexCache {
  private readonly entries: SizedLru<Entry>;
  private seen: string | undefined;
  private syncedAt = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly writes = new Set<Promise<unknown>>();

  /** `snapshotWaitMs`: how long a snapshot write waits for the transactions open when it stored its row (`writeIndexSnapshot`); tests shorten it. */
  constructor(
    private readonly schema: string,
    private readonly limits: IndexCacheLimits = DEFAULT_INDEX_CACHE_LIMITS,
    private readonly snapshotPool?: pg.Pool,
    private readonly snapshotWaitMs?: number,
  ) {
    this.entries = new SizedLru({ maxEntries: limits.maxPrefixes, maxBytes: limits.maxCachedBytes, maxRss: limits.maxRss }, (entry) => entry.index.bytes);
  }

  /** Items held over all entries. */
  get size(): number {
    let items = 0;
    for (const entry of this.entries.values()) items += entry.index.size;
    return items;
  }

  /** Memory of all entries' indexes, in bytes. */
  get bytes(): number {
    return this.entries.bytes;
  }

  /** The index of the prefix range [from, to), current as of now; undefined when the prefix is too large to index. */
  indexOf(db: pg.ClientBase, from: string, to: string): Promise<RecallIndex | undefined> {
    const run = this.queue.then(async () => {
      const key = `${from}\u0000${to}`;
      // An entry to read from its snapshot: the change feed goes in the same statement.
      if (this.snapshotPool && !this.entries.has(key) && !this.entries.isRefused(key)) return this.entryOf(db, from, to, await this.syncAndLoad(db, from, to));
      await this.sync(db);
      return this.entryOf(db, from, to);
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * The cached index of [from, to) as it stands, not synchronised: a search may rank on it first and
   * read the change feed in the statement that reads its hits' rows (`syncAlong`), then ask
   * `unchangedSince` whether a change reached it. Undefined when not cached or when the next
   * synchronisation would start over.
   */
  peek(from: string, to: string): Peeked | undefined {
    const key = `${from}\u0000${to}`;
    const entry = this.feedsChanges ? this.entries.get(key) : undefined;
    return entry && { index: entry.index, key, entry, version: entry.version };
  }

  /**
   * Synchronises in the statement `read` runs, given the change feed's SELECT (its ten columns):
   * `read` returns the feed's rows and its own result. Runs in the cache's queue, as `indexOf`.
   */
  syncAlong<T>(db: pg.ClientBase, read: (feed: string) => Promise<{ feed: FeedRow[]; result: T }>): Promise<T> {
    const run = this.queue.then(async () => {
      const { feed, result } = await read(this.feed(db));
      this.applyFeed(feed.map(changeRowOfFeed));
      return result;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** After `syncAlong`: whether `peeked`'s index is still the prefix's and no change reached it; its snapshot is written when due. */
  unchangedSince(peeked: Peeked): boolean {
    const entry = this.entries.get(peeked.key);
    if (entry !== peeked.entry) return false;
    this.persistWhenDue(peeked.key, entry);
    return entry.version === peeked.version;
  }

  clear(): void {
    this.entries.clear();
  }

  /** Resolves once every snapshot write scheduled so far has finished (written, skipped or failed and logged). */
  async settled(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.writes.size > 0) await Promise.all([...this.writes]);
  }

  /** Whether the next synchronisation reads the changes since `seen` (else the cache starts over: empty, never synchronised, or idle too long). */
  private get feedsChanges(): boolean {
    return this.seen !== undefined && !this.entries.isEmpty && Date.now() - this.syncedAt <= MAX_IDLE_MS;
  }

  /** The change feed (`changeFeed`): the new xmin and, when `feedsChanges`, every change not visible before the last one; else the cache starts over (cleared), taking only the xmin. */
  private feed(db: pg.ClientBase): string {
    if (this.feedsChanges) return changeFeed(this.schema, db.escapeLiteral(this.seen as string));
    this.clear();
    return changeFeed(this.schema, undefined);
  }

  private async sync(db: pg.ClientBase): Promise<void> {
    const { rows } = await db.query<FeedRow>(this.feed(db));
    this.applyFeed(rows.map(changeRowOfFeed));
  }

  /** Synchronises and loads the snapshot of [from, to) in one statement (`loadIndexSnapshot` with the feed as `also`). */
  private async syncAndLoad(db: pg.ClientBase, from: string, to: string): Promise<SnapshotLoad> {
    const also: AlsoRead = { select: this.feed(db) };
    const loaded = await loadIndexSnapshot(db, this.schema, from, to, MAX_DELTA, also);
    this.applyFeed(also.rows ?? []);
    return loaded;
  }

  private applyFeed(rows: readonly ChangeRow[]): void {
    this.apply(rows);
    this.seen = rows.find((row) => row.kind === "x")?.xmin ?? this.seen;
    this.syncedAt = Date.now();
  }

  private apply(rows: readonly ChangeRow[]): void {
    const items = inWriteOrder(rows.filter((row) => row.kind === "i"));
    if (items.length > MAX_DELTA) {
      this.clear();
      return;
    }
    for (const row of rows) {
      if (row.kind !== "d") continue;
      if (row.id !== null) {
        for (const [key, entry] of this.entries.entries()) {
          if (!entry.index.has(row.id)) continue;
          entry.index.remove(row.id);
          this.entries.remeasure(key);
          entry.changed += 1;
          entry.version += 1;
          entry.touched = true;
        }
        continue;
      }
      // A prefix deletion: every entry it touches is built again on its next use.
      const [from, to] = [row.ns_path ?? "", row.to_path ?? ""];
      for (const [key, entry] of this.entries.entries()) {
        if (entry.from < to && from < entry.to) this.entries.delete(key);
      }
      this.entries.clearRefused();
    }
    for (const row of items) {
      const path = row.ns_path ?? "";
      for (const [key, entry] of this.entries.entries()) {
        if (path < entry.from || path >= entry.to) continue;
        entry.changed += 1;
        entry.version += 1;
        if (applyItem(entry.index, row as ChangeRow & { id: string })) entry.touched = true;
        this.entries.remeasure(key);
      }
    }
  }

  /** The entry of [from, to): cached, else from `loaded` (or its snapshot, read now), else built from its rows. */
  private async entryOf(db: pg.ClientBase, from: string, to: string, loaded?: SnapshotLoad): Promise<RecallIndex | undefined> {
    const key = `${from}\u0000${to}`;
    if (this.entries.isRefused(key)) return undefined;
    const hit = this.entries.get(key);
    if (hit) {
      this.persistWhenDue(key, hit);
      return hit.index;
    }
    if (this.snapshotPool) {
      loaded ??= await loadIndexSnapshot(db, this.schema, from, to, MAX_DELTA);
      if (loaded.index && loaded.index.size <= this.limits.maxItems) {
        const entry: Entry = { from, to, index: loaded.index, stamp: loaded.stamp, changed: loaded.applied, touched: loaded.touched, version: 0 };
        this.entries.set(key, entry);
        this.persistWhenDue(key, entry);
        return loaded.index;
      }
      if (loaded.index) log.warn("store.recall_snapshot_unused", { schema: this.schema, reason: "over maxItems", items: loaded.index.size });
      else if (loaded.reason !== "missing") log.warn("store.recall_snapshot_unused", { schema: this.schema, reason: loaded.reason, detail: loaded.detail });
    }
    const { rows } = await db.query<{ id: string; ns_path: string; tokens: string } & TraitColumns>(
      `SELECT id, ns_path, tokens, label, speaker, asks FROM ${this.schema}.store_items
       WHERE ns_path >= $1 AND ns_path < $2 AND tokens IS NOT NULL ORDER BY id LIMIT $3`,
      [from, to, this.limits.maxItems + 1],
    );
    if (rows.length > this.limits.maxItems) {
      this.entries.refuse(key);
      return undefined;
    }
    const index = buildRecallIndex(rows, (row) => ({ id: row.id, group: row.ns_path, order: Number(row.id) }));
    const entry: Entry = { from, to, index, changed: 0, touched: false, version: 0 };
    this.entries.set(key, entry);
    this.persistWhenDue(key, entry);
    return index;
  }

  /**
   * Schedules the write of `entry`'s snapshot when it has none, or enough changed since, for after
   * the current search has its answer. The bytes are taken then, with the cache's `seen` as the
   * stamp (the entry holds every change visible before it), unless the entry has left the cache
   * (evicted, or dropped by a deletion) by then.
   */
  private persistWhenDue(key: string, entry: Entry): void {
    const pool = this.snapshotPool;
    if (!pool || entry.writing || entry.index.size === 0) return;
    if (entry.stamp !== undefined && !entry.touched && entry.changed < snapshotRefreshRows(entry.index.size)) return;
    entry.writing = true;
    const write = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      const stamp = this.seen;
      if (stamp === undefined || !this.entries.has(key) || this.entries.get(key) !== entry) return;
      const state = entry.index.snapshotState();
      const bytes = encodeIndexState(state);
      [entry.stamp, entry.changed, entry.touched] = [stamp, 0, false];
      const outcome = await writeIndexSnapshot(pool, this.schema, entry, stamp, state, bytes, this.snapshotWaitMs);
      if (outcome === "withdrawn") log.info("store.recall_snapshot_withdrawn", { schema: this.schema, reason: "a change committed meanwhile touched it" });
      // None stored (or none current): written again at the entry's next use.
      if (outcome === "withdrawn" || outcome === "gave up") entry.stamp = undefined;
    });
    const tracked = write
      .catch((error: unknown) => log.warn("store.recall_snapshot_write_failed", { schema: this.schema, error: (error as Error).message }))
      .finally(() => {
        entry.writing = false;
        this.writes.delete(tracked);
      });
    this.writes.add(tracked);
  }
}
