import type Database from "better-sqlite3";
import type { ScoredId } from "../../ranking/bm25.js";
import { indexCacheOf } from "./index-cache.js";
import { statement } from "./statements.js";

/** A stored Float32 vector BLOB as its own unit-length Float32Array (the zero vector stays zero). */
function unitOf(blob: Buffer): Float32Array {
  const vector = new Float32Array(new Uint8Array(blob).buffer);
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += (vector[i] as number) ** 2;
  if (norm > 0) {
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) * scale;
  }
  return vector;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

/**
 * Vector hits among the `candidateLimit` most recent items under the scope (or `recentIds`, when
 * the caller knows them) and the lexical
 * candidates: cosine similarity ≥ `minVectorSimilarity`, best first. Vectors come from the
 * connection's `IndexCache` when it holds them, else from `store_vectors`. A stored vector of another
 * length (another embedding model) is not comparable and is skipped.
 */
export function vectorHits(
  db: Database.Database,
  scope: { where: string; params: unknown[] },
  queryVector: readonly number[],
  lexicalIds: readonly string[],
  settings: { candidateLimit: number; minVectorSimilarity: number },
  recentIds?: readonly string[],
): ScoredId[] {
  const recent =
    recentIds?.map(Number) ??
    (statement(db, `SELECT i.id AS id FROM store_items i WHERE ${scope.where} ORDER BY i.updated_at DESC, i.seq DESC LIMIT ?`)
      .pluck()
      .all(...scope.params, settings.candidateLimit) as number[]);
  const ids = [...new Set([...recent, ...lexicalIds.map(Number)])];
  const cache = indexCacheOf(db);
  const { found, missing } = cache.cachedVectors(ids);
  if (missing.length > 0) {
    const rows = statement(db, "SELECT v.item_id AS id, v.vector AS vector FROM json_each(?) j CROSS JOIN store_vectors v ON v.item_id = j.value").all(
      JSON.stringify(missing),
    ) as { id: number; vector: Buffer }[];
    const read = new Map(rows.map((row) => [row.id, unitOf(row.vector)]));
    cache.rememberVectors(read);
    for (const [id, vector] of read) found.set(id, vector);
  }
  const query = unitOf(Buffer.from(Float32Array.from(queryVector).buffer));
  const hits: ScoredId[] = [];
  for (const [id, vector] of found) {
    if (vector.length !== query.length) continue;
    // Both are unit length (or zero), so the dot product is the cosine similarity.
    const similarity = dot(query, vector);
    if (similarity >= settings.minVectorSimilarity) hits.push({ id: String(id), score: similarity });
  }
  return hits.sort((a, b) => b.score - a.score);
}
