import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type Database from "better-sqlite3";
import { embedValues } from "../shared/store-common.js";
import { encodeVector } from "../shared/vector-codec.js";
import { LIVE } from "./schema.js";
import { statement } from "./statements.js";
import { writeWhenFree } from "./write-when-free.js";

/**
 * The vectors a put with `deferVector` left out, written later (`SqliteStore.embedDeferred`): read
 * the rows, embed outside any transaction, then write each vector onto the row only if that row
 * is still the one read. An item's `seq` is renewed by every write of it, but in SQLite an id and a
 * `seq` can both come back after the newest item is deleted (neither is AUTOINCREMENT), so the
 * stored value is compared too.
 */

/** A live item that is indexed for text (it has a full-text row) and has no vector: what `embedDeferred` embeds. */
export interface UnembeddedItem {
  id: number;
  seq: number;
  /** The value as stored (JSON text), compared again when the vector is written. */
  json: string;
  value: Record<string, unknown>;
}

/** The live items at `keys` of the namespace stored as `path` that have a full-text row and no vector. */
export function unembeddedItems(db: Database.Database, path: string, keys: readonly string[], now: number): UnembeddedItem[] {
  const rows = statement(
    db,
    `SELECT i.id AS id, i.seq AS seq, i.value AS json FROM store_items i
     WHERE i.ns_path = ? AND i.key IN (SELECT value FROM json_each(?)) AND ${LIVE}
       AND EXISTS (SELECT 1 FROM store_fts f WHERE f.rowid = i.id) AND NOT EXISTS (SELECT 1 FROM store_vectors v WHERE v.item_id = i.id)`,
  ).all(path, JSON.stringify(keys), now) as { id: number; seq: number; json: string }[];
  return rows.map((row) => ({ ...row, value: JSON.parse(row.json) as Record<string, unknown> }));
}

/**
 * Writes each vector onto its item if the item is still the row read (same id, `seq` and value)
 * and has no vector yet, in one write transaction taken without blocking the event loop. Returns
 * how many it wrote; a row deleted or rewritten meanwhile gets none, and nothing else is written.
 */
export function writeVectorsOnto(db: Database.Database, items: readonly (UnembeddedItem & { vector: readonly number[] })[]): Promise<number> {
  if (items.length === 0) return Promise.resolve(0);
  const insert = `INSERT OR IGNORE INTO store_vectors (item_id, dims, vector)
    SELECT i.id, ?, ? FROM store_items i WHERE i.id = ? AND i.seq = ? AND i.value = ?`;
  return writeWhenFree(db, () =>
    db.transaction(() => items.reduce((written, item) => written + statement(db, insert).run(item.vector.length, encodeVector(item.vector), item.id, item.seq, item.json).changes, 0)).immediate(),
  );
}

/**
 * `embedDeferred` of the items at `keys` of the namespace stored as `path`: read, embedded (the
 * database free meanwhile), then written onto the rows as read, unless the store closed while the
 * embeddings were awaited (`assertOpen` throws). Returns how many vectors it wrote.
 */
export async function embedDeferredItems(
  db: Database.Database,
  options: { path: string; keys: readonly string[]; embeddings: EmbeddingsInterface; indexFields?: string[]; assertOpen: () => void },
): Promise<number> {
  const items = unembeddedItems(db, options.path, options.keys, Date.now());
  const vectors = await embedValues(items.map((item) => item.value), options);
  options.assertOpen();
  return writeVectorsOnto(db, items.flatMap((item, i) => (vectors[i] ? [{ ...item, vector: vectors[i] }] : [])));
}
