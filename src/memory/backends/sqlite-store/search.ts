import type Database from "better-sqlite3";
import type { Item, SearchItem, SearchOperation } from "@langchain/langgraph-checkpoint";
import { cosine } from "../../ranking/hash-embedder.js";
import { fuseRankings, normalizeScores, type RankedList } from "../../ranking/fusion.js";
import type { ScoredId } from "../../ranking/bm25.js";
import { tokenize } from "../../ranking/tokenize.js";
import { filterToSql } from "./filter.js";
import { blobToVector } from "./index-text.js";
import { prefixRange } from "./namespace.js";
import { ITEM_COLUMNS, type ItemRow } from "./schema.js";

/** Provenance of a ranked hit: normalised lexical score, cosine similarity, fused score (= `score`). */
export interface Ranking {
  lexical?: number;
  vector?: number;
  fused: number;
}

/** A search hit of the SQLite store. */
export type RankedSearchItem = SearchItem & { ranking?: Ranking };

/** Tuning of ranked search. */
export interface RankingSettings {
  /** Lexical matches considered, and recent items considered for the vector path. */
  candidateLimit: number;
  /** Cosine similarity below which a vector does not count as a hit. */
  minVectorSimilarity: number;
}

/** An item row as a `BaseStore` item. */
export function itemOf(row: ItemRow): Item {
  return {
    namespace: JSON.parse(row.namespace) as string[],
    key: row.key,
    value: JSON.parse(row.value) as Record<string, unknown>,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function scope(op: SearchOperation): { where: string; params: unknown[] } {
  const { from, to } = prefixRange(op.namespacePrefix);
  const filter = filterToSql(op.filter);
  return { where: `i.ns_path >= ? AND i.ns_path < ? AND (${filter.sql})`, params: [from, to, ...filter.params] };
}

/** Items under the prefix matching the filter, most recently updated first; no score. */
export function searchRecent(db: Database.Database, op: SearchOperation): SearchItem[] {
  const { where, params } = scope(op);
  const rows = db
    .prepare(`SELECT ${ITEM_COLUMNS} FROM store_items i WHERE ${where} ORDER BY i.updated_at DESC, i.seq DESC LIMIT ? OFFSET ?`)
    .all(...params, op.limit ?? 10, op.offset ?? 0) as ItemRow[];
  return rows.map(itemOf);
}

/** The FTS5 query for `text`: its distinct terms, each quoted, joined by OR; undefined when it has none. */
export function ftsQueryOf(text: string): string | undefined {
  const terms = [...new Set(tokenize(text))];
  return terms.length === 0 ? undefined : terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ");
}

function lexicalHits(db: Database.Database, op: SearchOperation, settings: RankingSettings): ScoredId[] {
  const match = ftsQueryOf(op.query ?? "");
  if (match === undefined) return [];
  const { where, params } = scope(op);
  const rows = db
    .prepare(
      `SELECT i.id AS id, bm25(store_fts) AS rank FROM store_fts JOIN store_items i ON i.id = store_fts.rowid
       WHERE store_fts MATCH ? AND ${where} ORDER BY rank LIMIT ?`,
    )
    .all(match, ...params, settings.candidateLimit) as { id: number; rank: number }[];
  // FTS5's bm25() is negative, lower is better.
  return rows.map((row) => ({ id: String(row.id), score: -row.rank }));
}

function vectorHits(
  db: Database.Database,
  op: SearchOperation,
  queryVector: readonly number[],
  lexicalIds: readonly string[],
  settings: RankingSettings,
): ScoredId[] {
  const { where, params } = scope(op);
  const recent = db
    .prepare(
      // Pick the ids first so only the chosen rows' vectors are read.
      `SELECT v.item_id AS id, v.vector AS vector FROM store_vectors v WHERE v.item_id IN (
         SELECT i.id FROM store_items i WHERE ${where} ORDER BY i.updated_at DESC, i.seq DESC LIMIT ?)`,
    )
    .all(...params, settings.candidateLimit) as { id: number; vector: Buffer }[];
  const seen = new Set(recent.map((r) => String(r.id)));
  const missing = lexicalIds.filter((id) => !seen.has(id));
  const extra =
    missing.length === 0
      ? []
      : (db
          .prepare(`SELECT item_id AS id, vector FROM store_vectors WHERE item_id IN (${missing.map(() => "?").join(",")})`)
          .all(...missing.map(Number)) as { id: number; vector: Buffer }[]);
  const hits: ScoredId[] = [];
  for (const row of [...recent, ...extra]) {
    const vector = blobToVector(row.vector);
    // A vector from another embedding model (other length) cannot be compared; it is not a hit.
    if (vector.length !== queryVector.length) continue;
    const similarity = cosine(queryVector, vector);
    if (similarity >= settings.minVectorSimilarity) hits.push({ id: String(row.id), score: similarity });
  }
  return hits;
}

/**
 * Hybrid search: up to `candidateLimit` FTS5 matches of the query's terms (BM25) under the prefix
 * and filter; with a query vector, cosine similarity over those candidates and the
 * `candidateLimit` most recent items, counting only similarities ≥ `minVectorSimilarity`; both
 * lists fused by reciprocal rank. Scores are max-normalised (best hit = 1). Items no source
 * counted are not returned. `offset`/`limit` apply to the fused order.
 */
export function searchRanked(
  db: Database.Database,
  op: SearchOperation,
  queryVector: readonly number[] | undefined,
  settings: RankingSettings,
): RankedSearchItem[] {
  const lexical = lexicalHits(db, op, settings);
  const lists: RankedList[] = [{ name: "lexical", results: lexical }];
  if (queryVector) {
    lists.push({ name: "vector", results: vectorHits(db, op, queryVector, lexical.map((h) => h.id), settings) });
  }
  const offset = op.offset ?? 0;
  const page = normalizeScores(fuseRankings(lists)).slice(offset, offset + (op.limit ?? 10));
  if (page.length === 0) return [];
  const lexicalScore = new Map(normalizeScores(lexical).map((h) => [h.id, h.score]));
  const rows = db
    .prepare(`SELECT ${ITEM_COLUMNS} FROM store_items i WHERE i.id IN (${page.map(() => "?").join(",")})`)
    .all(...page.map((hit) => Number(hit.id))) as ItemRow[];
  const byId = new Map(rows.map((row) => [String(row.id), row]));
  return page.flatMap((hit) => {
    const row = byId.get(hit.id);
    if (!row) return [];
    const ranking: Ranking = { fused: hit.score };
    const lexicalPart = lexicalScore.get(hit.id);
    if (lexicalPart !== undefined) ranking.lexical = lexicalPart;
    const vectorPart = hit.parts.vector;
    if (vectorPart) ranking.vector = vectorPart.score;
    return [{ ...itemOf(row), score: hit.score, ranking }];
  });
}
