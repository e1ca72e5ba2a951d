import type Database from "better-sqlite3";
import type { ScoredId } from "../../memory/ranking/bm25.js";
import { vectorCandidateIds } from "../../memory/ranking/index-source.js";
import { decodeVector } from "../shared/vector-codec.js";
import { indexCacheOf } from "./index-cache.js";
import { statement } from "./statements.js";

/** `vector` scaled in place to unit length (the zero vector stays zero). */
function unitOf(vector: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += (vector[i] as number) ** 2;
  if (norm > 0) {
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) * scale;
  }
  return vector;
}

function dot(a: Float32Array, b: Float32Array): number {
  const n = a.length;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += (a[i] as number) * (b[i] as number);
    s1 += (a[i + 1] as number) * (b[i + 1] as number);
    s2 += (a[i + 2] as number) * (b[i + 2] as number);
    s3 += (a[i + 3] as number) * (b[i + 3] as number);
  }
  for (; i < n; i++) s0 += (a[i] as number) * (b[i] as number);
  return s0 + s1 + s2 + s3;
}

/**
 * Vector hits among the `recentCandidates` (default `candidateLimit`) most recent items under the scope (or `recentIds`, when
 * the caller knows them) and the best `vectorCandidates` lexical candidates (`lexicalIds` are best
 * first; all of them when unset): cosine similarity ≥ `minVectorSimilarity`, best first. Vectors
 * come from the connection's `IndexCache` when it holds them, else from `store_vectors`. A stored
 * vector of another length (another embedding model) is not comparable and is skipped.
 */
export function vectorHits(
  db: Database.Database,
  scope: { where: string; params: unknown[] },
  queryVector: readonly number[],
  lexicalIds: readonly string[],
  settings: { candidateLimit: number; minVectorSimilarity: number; vectorCandidates?: number; recentCandidates?: number },
  recentIds?: readonly string[],
): ScoredId[] {
  const recent =
    recentIds?.map(Number) ??
    (statement(db, `SELECT i.id AS id FROM store_items i WHERE ${scope.where} ORDER BY i.updated_at DESC, i.seq DESC LIMIT ?`)
      .pluck()
      .all(...scope.params, settings.recentCandidates ?? settings.candidateLimit) as number[]);
  const ids = vectorCandidateIds(lexicalIds, recent.map(String), settings.vectorCandidates).map(Number);
  const cache = indexCacheOf(db);
  const { found, missing } = cache.cachedVectors(ids);
  if (missing.length > 0) {
    const rows = statement(db, "SELECT v.item_id AS id, v.dims AS dims, v.vector AS vector FROM json_each(?) j CROSS JOIN store_vectors v ON v.item_id = j.value").all(
      JSON.stringify(missing),
    ) as { id: number; dims: number; vector: Buffer }[];
    const read = new Map<number, Float32Array>();
    for (const row of rows) {
      // Compact rows and the Float32 rows written before them alike; an unreadable one is skipped.
      const vector = decodeVector(row.vector, row.dims);
      if (vector) read.set(row.id, unitOf(vector));
    }
    cache.rememberVectors(read);
    for (const [id, vector] of read) found.set(id, vector);
  }
  const query = unitOf(Float32Array.from(queryVector));
  const hits: ScoredId[] = [];
  for (const [id, vector] of found) {
    if (vector.length !== query.length) continue;
    // Both are unit length (or zero), so the dot product is the cosine similarity.
    const similarity = dot(query, vector);
    if (similarity >= settings.minVectorSimilarity) hits.push({ id: String(id), score: similarity });
  }
  return hits.sort((a, b) => b.score - a.score);
}
