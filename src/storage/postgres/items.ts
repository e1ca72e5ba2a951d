import type pg from "pg";
import type { Item, ListNamespacesOperation, PutOperation } from "@langchain/langgraph-checkpoint";
import { listScanRange, pathOf, pickNamespaces, prefixRange } from "../shared/namespace.js";
import { vectorLiteral } from "./sql.js";
import { recordTraits } from "../../memory/ranking/document-text.js";
import { columnsOfTraits } from "../../memory/ranking/index-source.js";
import { ttlMinutesOf, type PreparedPut } from "../shared/store-common.js";
import type { ReadTime, StoreTtlConfig } from "../shared/ttl.js";


/** An item row as read back. */
export interface ItemRow {
  id: string;
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  /** The item's TTL in minutes (null: it never expires), so a refreshing read touches only the rows that have one. */
  ttl_minutes: number | null;
}

/** The columns every item read selects, for a table aliased `i`. */
export const ITEM_COLUMNS = "i.id, i.namespace, i.key, i.value, i.created_at, i.updated_at, i.ttl_minutes";

/** The condition (over `store_items i`) that an item has not expired by `now`, the placeholder of a timestamptz. */
export function live(now: string): string {
  return `(i.expires_at IS NULL OR i.expires_at > ${now})`;
}

/** An item row as a `BaseStore` item. */
export function itemOf(row: ItemRow): Item {
  return { namespace: row.namespace, key: row.key, value: row.value, createdAt: row.created_at, updatedAt: row.updated_at };
}

/** `rows` as items, returned by a read at `at`: the ids of those with a TTL are noted in `at.expiring` (when the read refreshes). */
export function itemsOf(rows: readonly ItemRow[], at: ReadTime<string>): Item[] {
  if (at.expiring) for (const row of rows) if (row.ttl_minutes !== null) at.expiring.push(row.id);
  return rows.map(itemOf);
}

/** The item at (namespace, key) not expired at `at.now`, or null. */
export async function readItem(db: pg.ClientBase, schema: string, namespace: string[], key: string, at: ReadTime<string>): Promise<Item | null> {
  const { rows } = await db.query<ItemRow>(`SELECT ${ITEM_COLUMNS} FROM ${schema}.store_items i WHERE i.ns_path = $1 AND i.key = $2 AND ${live("$3")}`, [
    pathOf(namespace),
    key,
    new Date(at.now),
  ]);
  return itemsOf(rows, at)[0] ?? null;
}

/** Pushes back the expiry of the items `ids` that have a TTL and have not expired: each by its own TTL, from `now` (`written_xid`, `updated_at` stay). */
export async function refreshExpiry(db: pg.ClientBase, schema: string, ids: readonly string[], now: number): Promise<void> {
  await db.query(
    `UPDATE ${schema}.store_items SET expires_at = $2::timestamptz + ttl_minutes * interval '1 minute'
     WHERE id = ANY($1::bigint[]) AND ttl_minutes IS NOT NULL AND expires_at > $2`,
    [ids, new Date(now)],
  );
}

/** Deletes every item expired at `now` (vectors go with them; deletions logged in `store_deletions`); returns the item count. */
export async function sweepExpired(db: pg.ClientBase | pg.Pool, schema: string, now: number): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `WITH d AS (DELETE FROM ${schema}.store_items WHERE expires_at IS NOT NULL AND expires_at <= $1 RETURNING id, ns_path),
     logged AS (INSERT INTO ${schema}.store_deletions (item_id) SELECT id FROM d),
     dropped AS (${dropSnapshotsOf(schema, "d")})
     SELECT count(*) AS n FROM d`,
    [new Date(now)],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * The statement deleting the persisted recall indexes (`store_index_snapshots`) whose range holds a
 * path of `rows` (a CTE of deleted or rewritten items, `ns_path`): an index derived from an item
 * goes with it, in the same statement. A range is a namespace prefix's (`prefixRange`), so the ones
 * holding a path start where one of its labels ends: each is found by the primary key.
 */
function dropSnapshotsOf(schema: string, rows: string, where = "true"): string {
  return `DELETE FROM ${schema}.store_index_snapshots WHERE from_path IN (
    SELECT left(r.ns_path, p) FROM ${rows} r, generate_series(1, length(r.ns_path)) p WHERE ${where} AND substr(r.ns_path, p, 1) = chr(31))`;
}

/** Deletes the item at `op`'s namespace and key (its vector and any persisted recall index holding it go with it), logging the deletion in `store_deletions`. */
export async function deleteItem(db: pg.ClientBase, schema: string, op: PutOperation): Promise<void> {
  await db.query(
    `WITH d AS (DELETE FROM ${schema}.store_items WHERE ns_path = $1 AND key = $2 RETURNING id, ns_path),
     dropped AS (${dropSnapshotsOf(schema, "d")})
     INSERT INTO ${schema}.store_deletions (item_id) SELECT id FROM d`,
    [pathOf(op.namespace), op.key],
  );
}

/**
 * Upserts items (no deletes, no two of the same namespace and key) in one statement, so that on its
 * own it is one transaction: each item keeps `created_at`, gets `updated_at`, a fresh `seq`, its
 * `tokens` (empty: left out of the recall index) and trait columns, its TTL (the put's `ttl`, else
 * the store's `defaultTtl`, counted from now), and this transaction as `written_xid`; rows are
 * inserted in the given order (so ids keep turn order). With `vectors`, the same statement replaces
 * each item's vector, or deletes the one it no longer has. A rewritten item (one that was stored
 * before) deletes the persisted recall indexes holding its old text.
 */
export async function writeItems(db: pg.ClientBase, schema: string, vectors: boolean, puts: readonly PreparedPut[], ttl?: StoreTtlConfig): Promise<void> {
  const columns = puts.map(({ op, traits }) => columnsOfTraits(traits ?? recordTraits(op.value)));
  const values: unknown[] = [
    puts.map(({ op }) => pathOf(op.namespace)),
    puts.map(({ op }) => JSON.stringify(op.namespace)),
    puts.map(({ op }) => op.key),
    puts.map(({ op }) => JSON.stringify(op.value)),
    puts.map(({ terms }) => terms),
    columns.map((c) => c.label),
    columns.map((c) => c.speaker),
    columns.map((c) => c.asks),
    new Date(),
    puts.map(({ op }) => ttlMinutesOf(op, ttl)),
  ];
  const upsert = `INSERT INTO ${schema}.store_items (ns_path, namespace, key, value, created_at, updated_at, tokens, label, speaker, asks, ttl_minutes, expires_at)
     SELECT u.path, ARRAY(SELECT jsonb_array_elements_text(u.ns::jsonb)), u.key, u.value::jsonb, $9, $9, NULLIF(u.terms, ''), u.label, u.speaker, u.asks,
       u.ttl, $9::timestamptz + u.ttl * interval '1 minute'
     FROM u ORDER BY u.n
     ON CONFLICT (ns_path, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at, tokens = EXCLUDED.tokens, label = EXCLUDED.label, speaker = EXCLUDED.speaker, asks = EXCLUDED.asks,
       ttl_minutes = EXCLUDED.ttl_minutes, expires_at = EXCLUDED.expires_at, seq = nextval('${schema}.store_items_seq'), written_xid = pg_current_xact_id()
     RETURNING id, ns_path, key, xmax <> 0 AS rewritten`;
  // xmax is set on a row the upsert updated, 0 on one it inserted.
  const dropRewritten = dropSnapshotsOf(schema, "written", "r.rewritten");
  const itemColumns = "$1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::boolean[], $10::float8[]";
  if (!vectors) {
    await db.query(`WITH u AS (SELECT * FROM unnest(${itemColumns}) WITH ORDINALITY AS u(path, ns, key, value, terms, label, speaker, asks, ttl, n)), written AS (${upsert}) ${dropRewritten}`, values);
    return;
  }
  const withVector = (put: PreparedPut): boolean => put.vector !== undefined && put.vector.length > 0;
  values.push(
    puts.map((put) => (withVector(put) ? vectorLiteral(put.vector as number[]) : null)),
    puts.map((put) => (withVector(put) ? (put.vector as number[]).length : null)),
  );
  await db.query(
    `WITH u AS (SELECT * FROM unnest(${itemColumns}, $11::text[], $12::int[]) WITH ORDINALITY AS u(path, ns, key, value, terms, label, speaker, asks, ttl, vec, dims, n)),
     written AS (${upsert}),
     kept AS (SELECT w.id, u.vec, u.dims FROM written w JOIN u ON u.path = w.ns_path AND u.key = w.key),
     put_vectors AS (INSERT INTO ${schema}.store_vectors (item_id, dims, embedding) SELECT id, dims, vec::halfvec FROM kept WHERE vec IS NOT NULL
       ON CONFLICT (item_id) DO UPDATE SET dims = EXCLUDED.dims, embedding = EXCLUDED.embedding RETURNING 1),
     dropped AS (${dropRewritten})
     DELETE FROM ${schema}.store_vectors v USING kept WHERE v.item_id = kept.id AND kept.vec IS NULL`,
    values,
  );
}

/** The items at many (namespace, key) pairs not expired at `at.now`, in one statement, in the given order (null where none is). */
export async function readItems(db: pg.ClientBase, schema: string, reads: readonly { namespace: string[]; key: string }[], at: ReadTime<string>): Promise<(Item | null)[]> {
  if (reads.length === 1) return [await readItem(db, schema, reads[0]?.namespace ?? [], reads[0]?.key ?? "", at)];
  const { rows } = await db.query<ItemRow & { n: string }>(
    `SELECT u.n, ${ITEM_COLUMNS} FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(path, key, n)
     JOIN ${schema}.store_items i ON i.ns_path = u.path AND i.key = u.key WHERE ${live("$3")}`,
    [reads.map((r) => pathOf(r.namespace)), reads.map((r) => r.key), new Date(at.now)],
  );
  const items = itemsOf(rows, at);
  const found = new Map(rows.map((row, i) => [Number(row.n) - 1, items[i]]));
  return reads.map((_, i) => found.get(i) ?? null);
}

/**
 * Deletes every item under `prefix` (vectors and persisted recall indexes overlapping it go with them); returns the item count. Each deleted
 * item is logged in `store_deletions` by its id, not the range by its path: the log is kept a day,
 * and a path names the tenant and user that forgetting must leave no trace of.
 */
export async function deletePrefix(db: pg.ClientBase | pg.Pool, schema: string, prefix: readonly string[]): Promise<number> {
  const { from, to } = prefixRange(prefix);
  const { rows } = await db.query<{ n: string }>(
    `WITH d AS (DELETE FROM ${schema}.store_items WHERE ns_path >= $1 AND ns_path < $2 RETURNING id),
     logged AS (INSERT INTO ${schema}.store_deletions (item_id) SELECT id FROM d),
     dropped AS (DELETE FROM ${schema}.store_index_snapshots WHERE from_path < $2 AND $1 < to_path)
     SELECT count(*) AS n FROM d`,
    [from, to],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Lists namespaces as every store does (see `pickNamespaces`), of items not expired at `now`. Expects `validateOperation` to have passed. */
export async function listNamespaces(db: pg.ClientBase, schema: string, op: ListNamespacesOperation, now: number): Promise<string[][]> {
  const { from, to } = listScanRange(op);
  const { rows } = await db.query<{ namespace: string[] }>(
    `SELECT DISTINCT namespace FROM ${schema}.store_items i WHERE ns_path >= $1 AND ns_path < $2 AND ${live("$3")}`,
    [from, to, new Date(now)],
  );
  return pickNamespaces(
    rows.map((row) => row.namespace),
    op,
  );
}
