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
 * - at most `maxPrefixes` entries (least recently used goes first) and a prefix holding more than
 *   `maxItems` items is not cached (its searches use FTS5).
 */
export class IndexCache {
  private readonly entries = new Map<string, Entry>();
  private version: number | undefined;

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

  /** Applies committed writes of this connection to every cached prefix that holds them. */
  applyWrites(writes: readonly IndexedWrite[]): void {
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
  }

  private checkVersion(): void {
    const version = this.db.pragma("data_version", { simple: true }) as number;
    if (this.version !== undefined && version !== this.version) this.entries.clear();
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
