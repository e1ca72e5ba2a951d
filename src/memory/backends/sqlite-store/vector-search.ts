import type Database from "better-sqlite3";
import type { ScoredId } from "../../ranking/bm25.js";
import { statement } from "./statements.js";

/** A stored Float32 vector BLOB viewed in place when aligned, else copied. */
function viewOf(blob: Buffer): Float32Array {
  return blob.byteOffset % 4 === 0
    ? new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4)
    : new Float32Array(new Uint8Array(blob).buffer);
}

/** Cosine similarity of `query` (with its precomputed norm) and `vector`, typed-array fast path. */
function cosineTo(query: Float32Array, queryNorm: number, vector: Float32Array): number {
  let dot = 0;
  let norm = 0;
  for (let i = 0; i < vector.length; i++) {
    const v = vector[i] as number;
    dot += (query[i] as number) * v;
    norm += v * v;
  }
  return norm === 0 || queryNorm === 0 ? 0 : dot / (queryNorm * Math.sqrt(norm));
}

/**
 * Vector hits among the `candidateLimit` most recent items under the scope and the lexical
 * candidates: cosine similarity ≥ `minVectorSimilarity`, best first. A stored vector of another
 * length (another embedding model) is not comparable and is skipped.
 */
export function vectorHits(
  db: Database.Database,
  scope: { where: string; params: unknown[] },
  queryVector: readonly number[],
  lexicalIds: readonly string[],
  settings: { candidateLimit: number; minVectorSimilarity: number },
): ScoredId[] {
  const rows = statement(
    db,
    // Pick the ids first so only the chosen rows' vectors are read.
    `SELECT v.item_id AS id, v.vector AS vector FROM store_vectors v WHERE v.item_id IN (
       SELECT i.id FROM store_items i WHERE ${scope.where} ORDER BY i.updated_at DESC, i.seq DESC LIMIT ?)
       OR v.item_id IN (SELECT value FROM json_each(?))`,
  ).all(...scope.params, settings.candidateLimit, JSON.stringify(lexicalIds.map(Number))) as { id: number; vector: Buffer }[];
  const query = Float32Array.from(queryVector);
  const queryNorm = Math.sqrt(query.reduce((s, x) => s + x * x, 0));
  const hits: ScoredId[] = [];
  for (const row of rows) {
    const vector = viewOf(row.vector);
    if (vector.length !== query.length) continue;
    const similarity = cosineTo(query, queryNorm, vector);
    if (similarity >= settings.minVectorSimilarity) hits.push({ id: String(row.id), score: similarity });
  }
  return hits.sort((a, b) => b.score - a.score);
}
