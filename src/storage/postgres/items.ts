import type pg from "pg";
import type { Item, ListNamespacesOperation } from "@langchain/langgraph-checkpoint";
import { listScanRange, pathOf, pickNamespaces, prefixRange } from "../shared/namespace.js";
import { vectorLiteral } from "./sql.js";
import { recordTraits } from "../../memory/ranking/document-text.js";
import { columnsOfTraits } from "../../memory/ranking/index-source.js";

/** A put with the `tokenize()` terms of its indexed text (space-joined) and, when embedded, its vector. */
import type { PreparedPut } from "../shared/prepare-writes.js";

/** An item row as read back. */
export interface ItemRow {
  id: string;
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

/** The columns every item read selects, for a table aliased `i`. */
export const ITEM_COLUMNS = "i.id, i.namespace, i.key, i.value, i.created_at, i.updated_at";

/** An item row as a `BaseStore` item. */
export function itemOf(row: ItemRow): Item {
  return { namespace: row.namespace, key: row.key, value: row.value, createdAt: row.created_at, updatedAt: row.updated_at };
}

/** The item at (namespace, key), or null. */
export async function readItem(db: pg.ClientBase, schema: string, namespace: string[], key: string): Promise<Item | null> {
  const { rows } = await db.query<ItemRow>(`SELECT ${ITEM_COLUMNS} FROM ${schema}.store_items i WHERE i.ns_path = $1 AND i.key = $2`, [
    pathOf(namespace),
    key,
  ]);
  return rows[0] ? itemOf(rows[0]) : null;
}

/**
 * Applies one put inside the caller's transaction: upserts the item (keeping `created_at`,
 * setting `updated_at`, a fresh `seq`, its full-text terms, its `tokens` and trait columns, and
 * this transaction as `written_xid`) and replaces its vector, or deletes the item (its vector goes
 * with it; the deletion is logged in `store_deletions`) when the value is null. Empty `terms`
 * leave the item out of full-text search and of the recall index.
 */
export async function writeItem(db: pg.ClientBase, schema: string, vectors: boolean, { op, terms, traits, vector }: PreparedPut): Promise<void> {
  const path = pathOf(op.namespace);
  if (op.value === null) {
    await db.query(
      `WITH d AS (DELETE FROM ${schema}.store_items WHERE ns_path = $1 AND key = $2 RETURNING id)
       INSERT INTO ${schema}.store_deletions (item_id) SELECT id FROM d`,
      [path, op.key],
    );
    return;
  }
  const now = new Date();
  const columns = columnsOfTraits(traits ?? recordTraits(op.value));
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO ${schema}.store_items (ns_path, namespace, key, value, created_at, updated_at, terms, tokens, label, speaker, asks)
     VALUES ($1, $2, $3, $4, $5, $5, CASE WHEN $6::text = '' THEN NULL ELSE to_tsvector('simple', $6::text) END, NULLIF($6::text, ''), $7, $8, $9)
     ON CONFLICT (ns_path, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at,
       terms = EXCLUDED.terms, tokens = EXCLUDED.tokens, label = EXCLUDED.label, speaker = EXCLUDED.speaker, asks = EXCLUDED.asks,
       seq = nextval('${schema}.store_items_seq'), written_xid = pg_current_xact_id()
     RETURNING id`,
    [path, op.namespace, op.key, JSON.stringify(op.value), now, terms, columns.label, columns.speaker, columns.asks],
  );
  if (!vectors) return;
  const id = rows[0]?.id;
  if (vector && vector.length > 0) {
    await db.query(
      `INSERT INTO ${schema}.store_vectors (item_id, dims, embedding) VALUES ($1, $2, $3::halfvec)
       ON CONFLICT (item_id) DO UPDATE SET dims = EXCLUDED.dims, embedding = EXCLUDED.embedding`,
      [id, vector.length, vectorLiteral(vector)],
    );
  } else {
    await db.query(`DELETE FROM ${schema}.store_vectors WHERE item_id = $1`, [id]);
  }
}

/** Deletes every item under `prefix` (vectors go with them; the range is logged in `store_deletions`); returns the item count. */
export async function deletePrefix(db: pg.ClientBase | pg.Pool, schema: string, prefix: readonly string[]): Promise<number> {
  const { from, to } = prefixRange(prefix);
  const { rows } = await db.query<{ n: string }>(
    `WITH d AS (DELETE FROM ${schema}.store_items WHERE ns_path >= $1 AND ns_path < $2 RETURNING 1),
     logged AS (INSERT INTO ${schema}.store_deletions (from_path, to_path) SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM d))
     SELECT count(*) AS n FROM d`,
    [from, to],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Lists namespaces as every store does (see `pickNamespaces`). Expects `validateOperation` to have passed. */
export async function listNamespaces(db: pg.ClientBase, schema: string, op: ListNamespacesOperation): Promise<string[][]> {
  const { from, to } = listScanRange(op);
  const { rows } = await db.query<{ namespace: string[] }>(
    `SELECT DISTINCT namespace FROM ${schema}.store_items WHERE ns_path >= $1 AND ns_path < $2`,
    [from, to],
  );
  return pickNamespaces(
    rows.map((row) => row.namespace),
    op,
  );
}
