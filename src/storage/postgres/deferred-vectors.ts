import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type pg from "pg";
import { embedValues } from "../shared/store-common.js";
import { live } from "./items.js";
import { vectorLiteral } from "./sql.js";

/**
 * The vectors a put with `deferVector` left out, written later (`PostgresStore.embedDeferred`): read
 * the rows, embed outside any transaction, then write each vector onto the row only if that row
 * is still the one read. Ids and `seq` come from sequences and every write of an item renews its
 * `seq`, so the pair names one version of one item.
 */

/** A live item that is indexed for text (it has `tokens`) and has no vector: what `embedDeferred` embeds. */
export interface UnembeddedItem {
  id: string;
  seq: string;
  value: Record<string, unknown>;
}

/** The live items at `keys` of the namespace stored as `path` that have `tokens` and no vector. */
export async function unembeddedItems(db: pg.Pool | pg.ClientBase, schema: string, path: string, keys: readonly string[], now: number): Promise<UnembeddedItem[]> {
  const { rows } = await db.query<UnembeddedItem>(
    `SELECT i.id, i.seq, i.value FROM ${schema}.store_items i
     WHERE i.ns_path = $1 AND i.key = ANY($2::text[]) AND ${live("$3")} AND i.tokens IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM ${schema}.store_vectors v WHERE v.item_id = i.id)`,
    [path, keys, new Date(now)],
  );
  return rows;
}

/**
 * Writes each vector onto its item if the item is still the row read (same id and `seq`) and has no
 * vector yet, in one statement. Returns how many it wrote; a row deleted or rewritten meanwhile gets
 * none (one deleted while the statement runs fails it on the foreign key), and nothing else is written.
 */
export async function writeVectorsOnto(db: pg.Pool | pg.ClientBase, schema: string, items: readonly (UnembeddedItem & { vector: readonly number[] })[]): Promise<number> {
  if (items.length === 0) return 0;
  const { rowCount } = await db.query(
    `INSERT INTO ${schema}.store_vectors (item_id, dims, embedding)
     SELECT i.id, u.dims, u.vec::halfvec FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::int[]) AS u(id, seq, vec, dims)
     JOIN ${schema}.store_items i ON i.id = u.id AND i.seq = u.seq
     ON CONFLICT (item_id) DO NOTHING`,
    [items.map((item) => item.id), items.map((item) => item.seq), items.map((item) => vectorLiteral(item.vector)), items.map((item) => item.vector.length)],
  );
  return rowCount ?? 0;
}

/**
 * `embedDeferred` of the items at `keys` of the namespace stored as `path`: read, embedded (no
 * connection held meanwhile), each vector's index made when its length is new, then written onto
 * the rows as read. Returns how many vectors it wrote.
 */
export async function embedDeferredItems(
  db: pg.Pool,
  schema: string,
  options: { path: string; keys: readonly string[]; embeddings: EmbeddingsInterface; indexFields?: string[]; ensureIndex: (dims: number) => Promise<void> },
): Promise<number> {
  const items = await unembeddedItems(db, schema, options.path, options.keys, Date.now());
  const vectors = await embedValues(items.map((item) => item.value), options);
  const embedded = items.flatMap((item, i) => (vectors[i] ? [{ ...item, vector: vectors[i] }] : []));
  for (const item of embedded) await options.ensureIndex(item.vector.length);
  return writeVectorsOnto(db, schema, embedded);
}
