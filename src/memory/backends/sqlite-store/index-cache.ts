import type Database from "better-sqlite3";
import { RecallIndex } from "../../ranking/recall-index.js";
import { statement } from "./statements.js";

/** One item write as the cache sees it: its row id, namespace path and terms (null when deleted). */
export interface IndexedWrite {
  id: number;
  path: string;
  terms: string[] | null;
}

interface Entry {
  from: string;
  to: string;
  index: RecallIndex;
}

/**
 * In-process `RecallIndex`es of the search prefixes recently queried on one connection, so a
 * ranked search reads posting lists from memory instead of running FTS5. Invariants:
 * - an entry holds exactly the indexed items under its prefix: it is built from `store_fts` on
 *   first use and updated by every committed write of this connection (`applyWrites`);
 * - a change committed by any other connection (SQLite's `data_version` moves) drops every entry;
 * - stored vectors read for ranking are kept too (at most `maxVectorBytes`), dropped on any write
 *   of their item and on any change by another connection;
 * - at most `maxPrefixes` entries (least recently used goes first) and a prefix holding more than
 *   `maxItems` items is not cached (its searches use FTS5).
 */
export class IndexCache {
  private readonly entries = new Map<string, Entry>();
  /** Stored vectors read recently, by item id (insertion order = least recently used first). */
  private readonly vectors = new Map<number, Float32Array>();
  private vectorBytes = 0;
  private version: number | undefined;
  /** Upper bound of the vector cache, in bytes. */
  maxVectorBytes = 64 * 1024 * 1024;

  constructor(
    private readonly db: Database.Database,
    private readonly maxPrefixes = 16,
    private readonly maxItems = 250_000,
  ) {}

  /** The index of the prefix range [from, to), built when missing; undefined when too large to cache. */
  indexOf(from: string, to: string): RecallIndex | undefined {
    this.checkVersion();
    const key = `${from}\u0000${to}`;
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.index;
    }
    const { count } = statement(this.db, "SELECT COUNT(*) AS count FROM store_items WHERE ns_path >= ? AND ns_path < ?").get(from, to) as {
      count: number;
    };
    if (count > this.maxItems) return undefined;
    const index = new RecallIndex();
    const rows = statement(
      this.db,
      "SELECT i.id AS id, i.ns_path AS path, f.terms AS terms FROM store_items i JOIN store_fts f ON f.rowid = i.id WHERE i.ns_path >= ? AND i.ns_path < ? ORDER BY i.id",
    ).all(from, to) as { id: number; path: string; terms: string }[];
    for (const row of rows) index.add(String(row.id), row.terms.split(" "), row.path, row.id);
    this.entries.set(key, { from, to, index });
    if (this.entries.size > this.maxPrefixes) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return index;
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
    for (const entry of this.entries.values()) {
      for (const write of writes) {
        if (write.path < entry.from || write.path >= entry.to) continue;
        if (write.terms && write.terms.length > 0) entry.index.add(String(write.id), write.terms, write.path, write.id);
        else entry.index.remove(String(write.id));
      }
    }
  }

  clear(): void {
    this.entries.clear();
    this.vectors.clear();
    this.vectorBytes = 0;
  }

  private checkVersion(): void {
    const version = this.db.pragma("data_version", { simple: true }) as number;
    if (this.version !== undefined && version !== this.version) this.clear();
    this.version = version;
  }
}

const caches = new WeakMap<Database.Database, IndexCache>();

/** The index cache of a connection, shared by every store using it. */
export function indexCacheOf(db: Database.Database): IndexCache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new IndexCache(db)));
  return cache;
}
