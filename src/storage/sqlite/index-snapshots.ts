import type Database from "better-sqlite3";
import { reserveRows, roomFor, traitsOfColumns, type TraitColumns } from "../../memory/ranking/index-source.js";
import { RecallIndex } from "../../memory/ranking/recall-index.js";
import { statement } from "./statements.js";

/**
 * Persisted recall indexes (`store_index_snapshots`): per search prefix range, the index's canonical
 * bytes (`RecallIndex.toSnapshot`) and the `seq` it is current to. A connection with an empty cache
 * reads the bytes and the range's items written since (`seq` above it) instead of every row.
 * Derived data, removed with what it came from: deleting or rewriting an item deletes, in the same
 * transaction, the snapshots whose range holds it (`dropSnapshotsCovering`), deleting a prefix
 * those overlapping it. So a stored snapshot never needs a deletion applied: the items of its range
 * written since its `seq` were all inserted since.
 */

/** The ranges (`from_path`) that can hold `path`: it cut after each of its labels (a range is a namespace prefix's, see `prefixRange`). */
function rangeStartsOf(path: string): string[] {
  const starts: string[] = [];
  for (let at = path.indexOf("\u001f"); at >= 0; at = path.indexOf("\u001f", at + 1)) starts.push(path.slice(0, at + 1));
  return starts;
}

/** Deletes the snapshots whose range holds any of `paths` (items deleted or rewritten); inside the writing transaction. */
export function dropSnapshotsCovering(db: Database.Database, paths: Iterable<string>): void {
  const drop = statement(db, "DELETE FROM store_index_snapshots WHERE from_path = ?");
  const done = new Set<string>();
  for (const path of paths) {
    for (const from of rangeStartsOf(path)) {
      if (done.has(from)) continue;
      done.add(from);
      drop.run(from);
    }
  }
}

/** Deletes the snapshots whose range overlaps [from, to) (a prefix being deleted); inside the writing transaction. */
export function dropSnapshotsOverlapping(db: Database.Database, from: string, to: string): void {
  statement(db, "DELETE FROM store_index_snapshots WHERE from_path < ? AND ? < to_path").run(to, from);
}

/** The index of [from, to) from its snapshot and the range's items written since, or why there is none. */
export function loadIndexSnapshot(
  db: Database.Database,
  from: string,
  to: string,
): { index: RecallIndex; seq: number; applied: number } | { index?: undefined; reason: "missing" | "unreadable"; detail?: string } {
  const head = statement(db, "SELECT seq, items, data FROM store_index_snapshots WHERE from_path = ? AND to_path = ?").get(from, to) as
    | { seq: number; items: number; data: Buffer }
    | undefined;
  if (!head) return { reason: "missing" };
  // The rows first, so the index is restored with room for them (`roomFor`).
  const rows = rowsSince(db, from, to, head.seq, head.items);
  let index: RecallIndex;
  try {
    index = RecallIndex.fromSnapshot(head.data, {}, roomFor(rows));
  } catch (error) {
    return { reason: "unreadable", detail: (error as Error).message };
  }
  addRows(index, rows);
  return { index, seq: head.seq, applied: rows.length };
}

/**
 * Adds to `index` the items of [from, to) written after `seq` (re-adding one it holds is
 * idempotent); returns how many.
 */
export function catchUp(db: Database.Database, index: RecallIndex, from: string, to: string, seq: number): number {
  const rows = rowsSince(db, from, to, seq, index.size);
  reserveRows(index, rows);
  addRows(index, rows);
  return rows.length;
}

type ItemRow = { id: number; path: string; tokens: string } & TraitColumns;

/** The items of [from, to) written after `seq`, for an index of `size` documents. Few rows written anywhere since: read by `seq`; else by path. */
function rowsSince(db: Database.Database, from: string, to: string, seq: number, size: number): ItemRow[] {
  const { newest } = statement(db, "SELECT IFNULL(MAX(seq), 0) AS newest FROM store_items").get() as { newest: number };
  const bySeq = newest - seq <= size;
  return statement(
    db,
    `SELECT i.id AS id, i.ns_path AS path, f.terms AS tokens, i.label AS label, i.asks AS asks, i.speaker AS speaker
     FROM store_items i ${bySeq ? "INDEXED BY store_items_seq" : ""} JOIN store_fts f ON f.rowid = i.id
     WHERE i.ns_path >= ? AND i.ns_path < ? AND i.seq > ?`,
  ).all(from, to, seq) as ItemRow[];
}

function addRows(index: RecallIndex, rows: readonly ItemRow[]): void {
  for (const row of rows) index.add(String(row.id), row.tokens.split(" "), row.path, row.id, traitsOfColumns(row));
}

/** Stores the snapshot of [from, to) current to `seq`, replacing the one before; inside a write transaction holding the cache still. */
export function writeIndexSnapshot(db: Database.Database, range: { from: string; to: string }, seq: number, items: number, bytes: Uint8Array): void {
  statement(db, "INSERT OR REPLACE INTO store_index_snapshots (from_path, to_path, seq, items, data) VALUES (?, ?, ?, ?, ?)").run(
    range.from,
    range.to,
    seq,
    items,
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
  );
}
