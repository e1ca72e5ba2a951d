import type Database from "better-sqlite3";
import type { SearchItem } from "@langchain/langgraph-checkpoint";
import type { WeightedSearch } from "../../memory/ports/store.js";
import { prefixRange } from "../shared/namespace.js";
import { filterToSql } from "./filter.js";
import type { ReadTime } from "../shared/ttl.js";
import { itemColumns, LIVE, type ItemRow } from "./schema.js";
import { itemsOf } from "./search.js";
import { statement } from "./statements.js";

/**
 * Newest-first listing without a query: the items under a prefix, most recently updated first
 * (`updated_at`, then `seq`, which every write increases). Every read walks the index
 * `store_items_ns_recent (ns_path, updated_at, seq)` in its own order, so nothing is sorted by
 * SQLite (no temporary B-tree) and what is read is bounded by the page, not by what the prefix holds:
 * - a prefix that is one namespace (a session's transcript, a user's events) is one read;
 * - a prefix over several (a user's sessions) merges the namespaces' newest-first runs: one read
 *   finds each namespace's newest key (an index seek each), then a namespace the merge reaches
 *   the end of is read on a chunk of keys at a time (keyset: after the last key read), only as far
 *   as the page needs; then the page's rows are read by id.
 * Items expired at `at.now` are left out (see `ReadTime` for refreshing what is read).
 */

/** A key of the listing order: newer first. */
interface Key {
  id: number;
  updated_at: string;
  seq: number;
}

/** One namespace's keys read so far (newest first, `next` the first not yet merged) and whether it has more. */
interface Run {
  path: string;
  keys: Key[];
  next: number;
  more: boolean;
}

const FIRST_CHUNK = 16;

const newer = (a: Key, b: Key): number => (a.updated_at === b.updated_at ? b.seq - a.seq : a.updated_at > b.updated_at ? -1 : 1);

export function searchRecent(db: Database.Database, op: WeightedSearch, at: ReadTime): SearchItem[] {
  const { from, to } = prefixRange(op.namespacePrefix);
  const matched = filterToSql(op.filter);
  const filter = { sql: `${LIVE} AND (${matched.sql})`, params: [at.now, ...matched.params] };
  const limit = op.limit ?? 10;
  const offset = op.offset ?? 0;
  if (statement(db, "SELECT 1 FROM store_items WHERE ns_path > ? AND ns_path < ? LIMIT 1").get(from, to) === undefined) {
    const rows = statement(
      db,
      `SELECT ${itemColumns(op.textChars)} FROM store_items i WHERE i.ns_path = ? AND (${filter.sql}) ORDER BY i.updated_at DESC, i.seq DESC LIMIT ? OFFSET ?`,
    ).all(from, ...filter.params, limit, offset) as ItemRow[];
    return itemsOf(rows, at);
  }
  const ids = newestIds(db, from, to, filter, offset + limit).slice(offset);
  if (ids.length === 0) return [];
  // CROSS JOIN keeps json_each outermost: one rowid lookup per id, in no particular order.
  const rows = statement(db, `SELECT ${itemColumns(op.textChars)} FROM json_each(?) j CROSS JOIN store_items i ON i.id = j.value`).all(JSON.stringify(ids)) as ItemRow[];
  const byId = new Map(rows.map((row) => [row.id, row]));
  return itemsOf(
    ids.flatMap((id) => byId.get(id) ?? []),
    at,
  );
}

/**
 * The newest key matching `filter` of each namespace under [from, to): the namespaces are found by
 * skipping from one to the next in the index, and each gives one index seek.
 */
function headsUnder(db: Database.Database, from: string, to: string, filter: { sql: string; params: unknown[] }): (Key & { path: string })[] {
  return statement(
    db,
    `WITH RECURSIVE spaces(path) AS (
       SELECT MIN(ns_path) FROM store_items WHERE ns_path >= ? AND ns_path < ?
       UNION ALL
       SELECT (SELECT MIN(ns_path) FROM store_items WHERE ns_path > spaces.path AND ns_path < ?) FROM spaces WHERE spaces.path IS NOT NULL
     )
     SELECT spaces.path AS path, i.id, i.updated_at, i.seq FROM spaces JOIN store_items i ON i.id = (
       SELECT i.id FROM store_items i WHERE i.ns_path = spaces.path AND (${filter.sql}) ORDER BY i.updated_at DESC, i.seq DESC LIMIT 1)`,
  ).all(from, to, to, ...filter.params) as (Key & { path: string })[];
}

/**
 * The ids of the `wanted` newest items under [from, to) that match `filter`, newest first: the
 * namespaces' newest-first runs merged, each read a chunk at a time as the merge reaches its end.
 */
function newestIds(db: Database.Database, from: string, to: string, filter: { sql: string; params: unknown[] }, wanted: number): number[] {
  const read = statement(
    db,
    `SELECT i.id, i.updated_at, i.seq FROM store_items i
     WHERE i.ns_path = ? AND (i.updated_at, i.seq) < (?, ?) AND (${filter.sql})
     ORDER BY i.updated_at DESC, i.seq DESC LIMIT ?`,
  );
  // Runs with keys left, ordered by their next key, newest first (a sorted array: a few hundred namespaces at most).
  const queue: Run[] = [];
  const headOf = (run: Run): Key => run.keys[run.next]!;
  const enqueue = (run: Run): void => {
    let low = 0;
    let high = queue.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (newer(headOf(queue[mid]!), headOf(run)) < 0) low = mid + 1;
      else high = mid;
    }
    queue.splice(low, 0, run);
  };
  for (const head of headsUnder(db, from, to, filter)) enqueue({ path: head.path, keys: [head], next: 0, more: true });
  const ids: number[] = [];
  while (ids.length < wanted && queue.length > 0) {
    const run = queue.shift()!;
    const key = headOf(run);
    ids.push(key.id);
    run.next += 1;
    if (run.next === run.keys.length && run.more && ids.length < wanted) {
      // A run read to its end reads on after its last key: a chunk twice as long as the last, no longer than the page still needs.
      const count = Math.min(Math.max(FIRST_CHUNK, 2 * run.keys.length), wanted - ids.length);
      run.keys = read.all(run.path, key.updated_at, key.seq, ...filter.params, count) as Key[];
      run.next = 0;
      run.more = run.keys.length === count;
    }
    if (run.next < run.keys.length) enqueue(run);
  }
  return ids;
}
