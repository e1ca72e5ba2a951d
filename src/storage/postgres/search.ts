import type pg from "pg";
import type { SearchItem, SearchOperation } from "@langchain/langgraph-checkpoint";
import { fuseRankings, normalizeScores, type RankedList } from "../../memory/ranking/fusion.js";
import type { ScoredId } from "../../memory/ranking/bm25.js";
import { tokenize } from "../../memory/ranking/tokenize.js";
import { prefixRange } from "../shared/namespace.js";
import type { RankedItem, Ranking } from "../../memory/ports/store.js";
import type { RankingSettings } from "../shared/ranking-settings.js";
import { filterToPg } from "./filter.js";
import { ITEM_COLUMNS, itemOf, type ItemRow } from "./items.js";
import { Params, vectorLiteral } from "./sql.js";

/** Where one search looks: the store's schema, whether vectors exist, the ranking settings. */
export interface SearchContext {
  schema: string;
  vectors: boolean;
  settings: RankingSettings;
}

function scope(op: SearchOperation, p: Params): string {
  const { from, to } = prefixRange(op.namespacePrefix);
  return `i.ns_path >= ${p.add(from)} AND i.ns_path < ${p.add(to)} AND (${filterToPg(op.filter, p)})`;
}

/**
 * Items under the prefix matching the filter, most recently updated first; no score. Bounded by
 * the page, not by what the prefix holds: a recursive skip scan finds the namespaces under the
 * prefix, each gives its newest `limit + offset` matches through `store_items_ns_recent`, and only
 * those are sorted together.
 */
export async function searchRecent(db: pg.ClientBase, schema: string, op: SearchOperation): Promise<SearchItem[]> {
  const p = new Params();
  const { from, to } = prefixRange(op.namespacePrefix);
  const [fromParam, toParam] = [p.add(from), p.add(to)];
  const limit = op.limit ?? 10;
  const offset = op.offset ?? 0;
  const { rows } = await db.query<ItemRow>(
    `WITH RECURSIVE spaces(path) AS (
       SELECT min(ns_path) FROM ${schema}.store_items WHERE ns_path >= ${fromParam} AND ns_path < ${toParam}
       UNION ALL
       SELECT (SELECT min(ns_path) FROM ${schema}.store_items WHERE ns_path > spaces.path AND ns_path < ${toParam})
       FROM spaces WHERE spaces.path IS NOT NULL
     )
     SELECT ${ITEM_COLUMNS} FROM spaces CROSS JOIN LATERAL (
       SELECT * FROM ${schema}.store_items i WHERE i.ns_path = spaces.path AND (${filterToPg(op.filter, p)})
       ORDER BY i.updated_at DESC, i.seq DESC LIMIT ${p.add(limit + offset)}) i
     ORDER BY i.updated_at DESC, i.seq DESC LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`,
    p.values,
  );
  return rows.map(itemOf);
}

/**
 * The tsquery of the query's terms, ORed: the terms go through the same `to_tsvector('simple', …)`
 * as stored items, and each resulting lexeme is quoted, so no character of the query is syntax.
 */
const TSQUERY = (param: string) => `(SELECT string_agg('''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || '''', ' | ')::tsquery
  FROM unnest(to_tsvector('simple', ${param}::text)))`;

async function lexicalHits(db: pg.ClientBase, ctx: SearchContext, op: SearchOperation): Promise<ScoredId[]> {
  const terms = [...new Set(tokenize(op.query ?? ""))];
  if (terms.length === 0) return [];
  const p = new Params();
  const query = TSQUERY(p.add(terms.join(" ")));
  const where = scope(op, p);
  const { rows } = await db.query<{ id: string; rank: number }>(
    `WITH q AS (SELECT ${query} AS q)
     SELECT i.id, ts_rank(i.terms, q.q) AS rank FROM ${ctx.schema}.store_items i, q
     WHERE q.q IS NOT NULL AND i.terms @@ q.q AND ${where}
     ORDER BY rank DESC, i.updated_at DESC, i.seq DESC LIMIT ${p.add(ctx.settings.candidateLimit)}`,
    p.values,
  );
  return rows.map((row) => ({ id: row.id, score: row.rank }));
}

async function vectorHits(db: pg.ClientBase, ctx: SearchContext, op: SearchOperation, queryVector: readonly number[], lexicalIds: readonly string[]): Promise<ScoredId[]> {
  const dims = queryVector.length;
  if (!Number.isInteger(dims) || dims < 1) return [];
  const distance = `(v.embedding::halfvec(${dims}) <=> $1::halfvec(${dims}))`;
  const p = new Params();
  p.add(vectorLiteral(queryVector));
  const where = scope(op, p);
  // Nearest neighbours through the HNSW index; iterative scans keep filtering from starving it.
  await db.query(`SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(40, ctx.settings.candidateLimit))}`);
  await db.query("SET LOCAL hnsw.iterative_scan = relaxed_order");
  const nearest = await db.query<{ id: string; distance: number }>(
    `SELECT v.item_id AS id, ${distance} AS distance FROM ${ctx.schema}.store_vectors v
     JOIN ${ctx.schema}.store_items i ON i.id = v.item_id
     WHERE v.dims = ${dims} AND ${where} ORDER BY ${distance} LIMIT ${p.add(ctx.settings.candidateLimit)}`,
    p.values,
  );
  const seen = new Set(nearest.rows.map((r) => r.id));
  const missing = lexicalIds.filter((id) => !seen.has(id));
  const extra =
    missing.length === 0
      ? []
      : (
          await db.query<{ id: string; distance: number }>(
            `SELECT v.item_id AS id, ${distance} AS distance FROM ${ctx.schema}.store_vectors v
             WHERE v.dims = ${dims} AND v.item_id = ANY($2::bigint[])`,
            [vectorLiteral(queryVector), missing],
          )
        ).rows;
  const hits: ScoredId[] = [];
  for (const row of [...nearest.rows, ...extra]) {
    const similarity = 1 - Number(row.distance);
    if (similarity >= ctx.settings.minVectorSimilarity) hits.push({ id: row.id, score: similarity });
  }
  return hits;
}

/**
 * Hybrid search, as the SQLite store ranks: up to `candidateLimit` full-text matches of the
 * query's terms under the prefix and filter (ranked by `ts_rank`); with a query vector and
 * pgvector, the `candidateLimit` nearest items by cosine (HNSW) plus the lexical candidates,
 * counting only similarities ≥ `minVectorSimilarity`; both lists fused by reciprocal rank and
 * max-normalised (best hit = 1). Items no source counted are not returned. `offset`/`limit`
 * apply to the fused order. Must run inside a transaction (it sets index options locally).
 */
export async function searchRanked(
  db: pg.ClientBase,
  ctx: SearchContext,
  op: SearchOperation,
  queryVector: readonly number[] | undefined,
): Promise<RankedItem[]> {
  const lexical = await lexicalHits(db, ctx, op);
  const lists: RankedList[] = [{ name: "lexical", results: lexical }];
  if (queryVector && ctx.vectors) {
    lists.push({ name: "vector", results: await vectorHits(db, ctx, op, queryVector, lexical.map((h) => h.id)) });
  }
  const offset = op.offset ?? 0;
  const page = normalizeScores(fuseRankings(lists)).slice(offset, offset + (op.limit ?? 10));
  if (page.length === 0) return [];
  const lexicalScore = new Map(normalizeScores(lexical).map((h) => [h.id, h.score]));
  const { rows } = await db.query<ItemRow>(`SELECT ${ITEM_COLUMNS} FROM ${ctx.schema}.store_items i WHERE i.id = ANY($1::bigint[])`, [
    page.map((hit) => hit.id),
  ]);
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
