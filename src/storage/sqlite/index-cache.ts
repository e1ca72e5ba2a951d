import type Database from "better-sqlite3";
import type { DocTraits } from "../../memory/ranking/document-text.js";
import { buildRecallIndex, traitsOfColumns, type TraitColumns } from "../../memory/ranking/index-source.js";
import type { RecallIndex } from "../../memory/ranking/recall-index.js";
import { snapshotRefreshRows } from "../../memory/ranking/index-snapshot.js";
import { log } from "../../logger.js";
import { catchUp, loadIndexSnapshot, writeIndexSnapshot } from "./index-snapshots.js";
import { writeWhenFree } from "./write-when-free.js";
import { DEFAULT_RECALL_CACHE_BYTES, SizedLru, type RecallCacheBounds } from "../shared/sized-lru.js";
import { statement } from "./statements.js";

/** One item write as the cache sees it: its row id, namespace path, terms (null when deleted) and traits. */
export interface IndexedWrite {
  id: number;
  path: string;
  terms: string[] | null;
  traits?: DocTraits;
}

/** The trait columns (over `store_items i`) as `traitsOfColumns` reads them: plain columns written with each item. */
const TRAIT_COLUMNS = "i.label AS label, i.asks AS asks, i.speaker AS speaker";

interface Entry {
  from: string;
  to: string;
  index: RecallIndex;
  /** Whether its snapshot is stored (read or written by this cache, and not dropped by a deletion or rewrite since). */
  persisted: boolean;
  /** Writes applied since. */
  changed: number;
  /** A `seq` every item of its range written up to is known to be in the index (a lower bound). */
  seq: number;
  writing?: boolean;
}

/**
 * In-process `RecallIndex`es of the search prefixes recently queried on one connection, so a
 * ranked search reads posting lists from memory instead of running FTS5. Invariants:
 * - an entry holds exactly the indexed items under its prefix: it is built from `store_fts` on
 *   first use and updated by every committed write of this connection (`applyWrites`);
 * - when another connection has committed (SQLite's `data_version` moves), the items it wrote are
 *   read back by `seq` (which grows with every write, in commit order) and applied to every
 *   entry, and their cached vectors dropped; when it has deleted items (`store_meta.deletes`
 *   moved), every entry and vector is dropped instead, as a deletion leaves no row to read;
 * - stored vectors read for ranking are kept too (at most `maxVectorBytes`), dropped on any write
 *   of their item;
 * - at most `maxCachedBytes` of index memory over all entries (`RecallIndex.bytes`) and
 *   `maxPrefixes` entries (`SizedLru`: least recently used goes first); a prefix holding more than
 *   `maxItems` items is not cached (its searches use FTS5);
 * - with `snapshots` on, a missing entry is first read from its persisted snapshot and the range's
 *   items written since (`loadIndexSnapshot`), built from the rows only when there is none or it
 *   cannot be read (logged); after a build, or once `snapshotRefreshRows` writes were applied or
 *   one dropped its snapshot, the snapshot is written again after the search that caused it, in its
 *   own write transaction, which brings the entry up to date first (so the stamp, the newest `seq`, is exact).
 */
export class IndexCache {
  private readonly entries: SizedLru<Entry>;
  /** Stored vectors read recently, by item id (insertion order = least recently used first). */
  private readonly vectors = new Map<number, Float32Array>();
  private vectorBytes = 0;
  /** What this cache has seen of the database: `data_version`, newest `seq`, deletion count. */
  private seen: { version: number; seq: number; deletes: number } | undefined;
  /** Upper bound of the vector cache, in bytes. */
  maxVectorBytes = 64 * 1024 * 1024;
  /** Whether prefixes' indexes are persisted (`store_index_snapshots`) and read back on a miss. */
  snapshots = false;
  private readonly snapshotWrites = new Set<Promise<unknown>>();

  constructor(
    private readonly db: Database.Database,
    maxPrefixes = 4096,
    private readonly maxItems = 250_000,
    maxCachedBytes = DEFAULT_RECALL_CACHE_BYTES,
    maxRss = 0,
  ) {
    this.entries = new SizedLru({ maxEntries: maxPrefixes, maxBytes: maxCachedBytes, maxRss }, (entry) => entry.index.bytes);
  }

  /** The index of the prefix range [from, to), built when missing; undefined when too large to cache. */
  indexOf(from: string, to: string): RecallIndex | undefined {
    this.checkVersion();
    const key = `${from}\u0000${to}`;
    if (this.entries.isRefused(key)) return undefined;
    const hit = this.entries.get(key);
    if (hit) {
      this.persistWhenDue(key, hit);
      return hit.index;
    }
    if (this.snapshots) {
      const loaded = loadIndexSnapshot(this.db, from, to);
      if (loaded.index && loaded.index.size <= this.maxItems) {
        const entry: Entry = { from, to, index: loaded.index, persisted: true, changed: loaded.applied, seq: loaded.seq };
        this.entries.set(key, entry);
        this.persistWhenDue(key, entry);
        return loaded.index;
      }
      if (!loaded.index && loaded.reason !== "missing") log.warn("store.recall_snapshot_unused", { reason: loaded.reason, detail: loaded.detail });
    }
    const { count } = statement(this.db, "SELECT COUNT(*) AS count FROM store_items WHERE ns_path >= ? AND ns_path < ?").get(from, to) as {
      count: number;
    };
    if (count > this.maxItems) {
      // Items under a prefix only grow until something is deleted (which clears this cache).
      this.entries.refuse(key);
      return undefined;
    }
    const rows = statement(
      this.db,
      `SELECT i.id AS id, i.ns_path AS path, f.terms AS tokens, ${TRAIT_COLUMNS}
       FROM store_items i JOIN store_fts f ON f.rowid = i.id WHERE i.ns_path >= ? AND i.ns_path < ? ORDER BY i.id`,
    ).all(from, to) as ({ id: number; path: string; tokens: string } & TraitColumns)[];
    const index = buildRecallIndex(rows, (row) => ({ id: String(row.id), group: row.path, order: row.id }));
    const entry: Entry = { from, to, index, persisted: false, changed: 0, seq: this.seen?.seq ?? 0 };
    this.entries.set(key, entry);
    this.persistWhenDue(key, entry);
    return index;
  }

  /** Resolves once every snapshot write scheduled so far has finished (written, skipped, or failed and logged). */
  async settled(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.snapshotWrites.size > 0) await Promise.all([...this.snapshotWrites]);
  }

  /**
   * Schedules the write of `entry`'s snapshot when none is stored or enough changed since, for after
   * the current search. The write transaction holds the write lock, so nothing commits between the
   * cache catching up (`checkVersion`) and the bytes being stored; an entry dropped by then (a
   * deletion clears the cache) is not written.
   */
  private persistWhenDue(key: string, entry: Entry): void {
    if (!this.snapshots || entry.writing || entry.index.size === 0 || (entry.persisted && entry.changed < snapshotRefreshRows(entry.index.size))) return;
    entry.writing = true;
    const write = new Promise((resolve) => setImmediate(resolve))
      .then(async () => {
        if (!this.db.open) return;
        await writeWhenFree(this.db, () =>
          this.db
            .transaction(() => {
              this.checkVersion();
              if (this.entries.get(key) !== entry) return;
              // Committed writes of this connection the cache has not been told of yet come in here too.
              const { newest } = statement(this.db, "SELECT IFNULL(MAX(seq), 0) AS newest FROM store_items").get() as { newest: number };
              catchUp(this.db, entry.index, entry.from, entry.to, entry.seq);
              writeIndexSnapshot(this.db, entry, newest, entry.index.size, entry.index.toSnapshot());
              [entry.persisted, entry.changed, entry.seq] = [true, 0, newest];
            })
            .immediate(),
        );
      })
      .catch((error: unknown) => log.warn("store.recall_snapshot_write_failed", { error: (error as Error).message }))
      .finally(() => {
        entry.writing = false;
        this.snapshotWrites.delete(write);
      });
    this.snapshotWrites.add(write);
  }

  /** Whether the index of the prefix range [from, to) is built (as of the last write this cache saw). */
  isCached(from: string, to: string): boolean {
    return this.entries.has(`${from}\u0000${to}`);
  }

  /** The cached vectors of `ids` and the ids not cached. */
  cachedVectors(ids: Iterable<number>): { found: Map<number, Float32Array>; missing: number[] } {
    this.checkVersion();
    const found = new Map<number, Float32Array>();
    const missing: number[] = [];
    for (const id of ids) {
      const vector = this.vectors.get(id);
      if (vector) found.set(id, vector);
      else missing.push(id);
    }
    return { found, missing };
  }

  /** Remembers vectors read from the database, evicting the least recently added past the bound. */
  rememberVectors(read: ReadonlyMap<number, Float32Array>): void {
    for (const [id, vector] of read) {
      if (this.vectors.has(id)) continue;
      this.vectors.set(id, vector);
      this.vectorBytes += vector.byteLength;
    }
    for (const [id, vector] of this.vectors) {
      if (this.vectorBytes <= this.maxVectorBytes) break;
      this.vectors.delete(id);
      this.vectorBytes -= vector.byteLength;
    }
  }

  /** Applies committed writes of this connection to every cached prefix that holds them. */
  applyWrites(writes: readonly IndexedWrite[]): void {
    for (const write of writes) {
      const vector = this.vectors.get(write.id);
      if (vector) {
        this.vectors.delete(write.id);
        this.vectorBytes -= vector.byteLength;
      }
    }
    if (this.entries.size === 0) return;
    for (const [key, entry] of this.entries.entries()) {
      const changedBefore = entry.changed;
      for (const write of writes) {
        if (write.path < entry.from || write.path >= entry.to) continue;
        entry.changed += 1;
        // A rewrite or deletion dropped the stored snapshot holding it (see writeItem).
        if (entry.index.has(String(write.id))) entry.persisted = false;
        if (write.terms && write.terms.length > 0) entry.index.add(String(write.id), write.terms, write.path, write.id, write.traits);
        else entry.index.remove(String(write.id));
      }
      if (entry.changed !== changedBefore) this.entries.remeasure(key);
    }
  }

  clear(): void {
    this.entries.clear();
    this.vectors.clear();
    this.vectorBytes = 0;
  }

  private checkVersion(): void {
    const version = statement(this.db, "PRAGMA data_version").pluck().get() as number;
    if (this.seen?.version === version) return;
    const { deletes } = statement(this.db, "SELECT value AS deletes FROM store_meta WHERE name = 'deletes'").get() as { deletes: number };
    if (this.seen === undefined || deletes !== this.seen.deletes) {
      this.clear();
      const { seq } = statement(this.db, "SELECT IFNULL(MAX(seq), 0) AS seq FROM store_items").get() as { seq: number };
      this.seen = { version, seq, deletes };
      return;
    }
    // Another connection wrote: apply what it upserted (own writes come again; applying is idempotent).
    const rows = statement(
      this.db,
      `SELECT i.id AS id, i.ns_path AS path, i.seq AS seq, f.terms AS terms, ${TRAIT_COLUMNS}
       FROM store_items i LEFT JOIN store_fts f ON f.rowid = i.id WHERE i.seq > ? ORDER BY i.seq`,
    ).all(this.seen.seq) as ({ id: number; path: string; seq: number; terms: string | null } & TraitColumns)[];
    this.applyWrites(rows.map((row) => ({ id: row.id, path: row.path, terms: row.terms ? row.terms.split(" ") : null, traits: traitsOfColumns(row) })));
    this.seen = { version, seq: rows.at(-1)?.seq ?? this.seen.seq, deletes };
  }
}

const caches = new WeakMap<Database.Database, IndexCache>();

/**
 * The index cache of a connection, shared by every store using it; the first call makes it, within
 * `bounds` (`maxCachedBytes` of index memory, default `DEFAULT_RECALL_CACHE_BYTES`; `maxRss`, see `SizedLru`).
 */
export function indexCacheOf(db: Database.Database, bounds: RecallCacheBounds = {}): IndexCache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new IndexCache(db, undefined, undefined, bounds.maxCachedBytes, bounds.maxRss)));
  return cache;
}
