import type pg from "pg";
import type { SearchItem, SearchOperation } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../../errors.js";
import { normalizeScores } from "../../memory/ranking/fusion.js";
import { rankHybrid, type HybridOptions, type HybridResult } from "../../memory/ranking/hybrid.js";
import { hybridOptionsOf, indexSource, lexicalMaxOf, rankingOf, vectorCandidateIds } from "../../memory/ranking/index-source.js";
import type { ScoredId } from "../../memory/ranking/bm25.js";
import { tokenize } from "../../memory/ranking/tokenize.js";
import { prefixRange } from "../shared/namespace.js";
import type { RankedItem, WeightedSearch } from "../../memory/ports/store.js";
import type { RankingSettings } from "../shared/ranking-settings.js";
import { filterToPg } from "./filter.js";
import { ITEM_COLUMNS, itemOf, itemsOf, live, type ItemRow } from "./items.js";
import type { ReadTime } from "../shared/ttl.js";
import { Params, vectorLiteral } from "./sql.js";
import type { PostgresIndexCache } from "./index-cache.js";
import type { FeedRow } from "./change-feed.js";
import type { RecallIndex } from "../../memory/ranking/recall-index.js";

/** Where one search looks: the store's schema, whether vectors exist, the ranking settings, the recall index cache. */
export interface SearchContext {
  schema: string;
  vectors: boolean;
  settings: RankingSettings;
  cache: PostgresIndexCache;
}

/**
 * Items under the prefix matching the filter, most recently updated first; no score. Bounded by
 * the page, not by what the prefix holds: a recursive skip scan finds the namespaces under the
 * prefix, each gives its newest `limit + offset` matches through `store_items_ns_recent`, and only
 * those are sorted together. Items expired at `at.now` are left out.
 */
export async function searchRecent(db: pg.ClientBase, schema: string, op: SearchOperation, at: ReadTime<string>): Promise<SearchItem[]> {
  const p = new Params();
  const { from, to } = prefixRange(op.namespacePrefix);
  const [fromParam, toParam, nowParam] = [p.add(from), p.add(to), p.add(new Date(at.now))];
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
       SELECT * FROM ${schema}.store_items i WHERE i.ns_path = spaces.path AND ${live(nowParam)} AND (${filterToPg(op.filter, p)})
       ORDER BY i.updated_at DESC, i.seq DESC LIMIT ${p.add(limit + offset)}) i
     ORDER BY i.updated_at DESC, i.seq DESC LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`,
    p.values,
  );
  return itemsOf(rows, at);
}

/** Cosine similarity to `queryVector` of each of `ids` with a stored vector of its length, computed by pgvector; ≥ `minVectorSimilarity` only, best first. */
async function vectorHits(db: pg.ClientBase, ctx: SearchContext, queryVector: readonly number[], ids: readonly string[]): Promise<ScoredId[]> {
  const dims = queryVector.length;
  if (!Number.isInteger(dims) || dims < 1 || ids.length === 0) return [];
  const { rows } = await db.query<{ id: string; distance: number }>(
    `SELECT v.item_id AS id, (v.embedding::halfvec(${dims}) <=> $1::halfvec(${dims})) AS distance FROM ${ctx.schema}.store_vectors v
     WHERE v.dims = ${dims} AND v.item_id = ANY($2::bigint[])`,
    [vectorLiteral(queryVector), ids],
  );
  const hits: ScoredId[] = [];
  for (const row of rows) {
    const similarity = 1 - Number(row.distance);
    if (similarity >= ctx.settings.minVectorSimilarity) hits.push({ id: row.id, score: similarity });
  }
  return hits.sort((a, b) => b.score - a.score);
}

function hasFilter(op: SearchOperation): boolean {
  return op.filter !== undefined && Object.values(op.filter).some((v) => v !== undefined);
}

/** The condition (over `store_items i`, parameters in `p`) of a hit's row: not expired at `now`, within the search's filter. Every hit lies under the prefix (the index holds only it). */
function rowScope(op: SearchOperation, p: Params, now: number): string {
  return `${live(p.add(new Date(now)))}${hasFilter(op) ? ` AND (${filterToPg(op.filter, p)})` : ""}`;
}

/** A row of `feedAndRows`: the change feed's (`X`, `D`, `I`) or a hit's (`R`). */
type FeedOrItemRow = FeedRow & Partial<ItemRow> & { id: string };

/**
 * One statement, so one round trip and one database snapshot: the change feed (`feed`, its ten
 * columns) and the rows of `ids` (kind `R`), padded to the same columns.
 */
function feedAndRows(ctx: SearchContext, op: SearchOperation, feed: string, ids: readonly string[], now: number): { text: string; values: unknown[] } {
  const p = new Params();
  const idsParam = p.add(ids);
  const text = `SELECT f.kind, f.xmin, f.id, f.ns_path, f.to_path, f.tokens, f.label, f.speaker, f.asks, NULL::text[] AS namespace, NULL::text AS key,
      NULL::jsonb AS value, NULL::timestamptz AS created_at, NULL::timestamptz AS updated_at, NULL::double precision AS ttl_minutes FROM (${feed}) f
    UNION ALL SELECT 'R', NULL, i.id::text, NULL, NULL, NULL, NULL, NULL, NULL, i.namespace, i.key, i.value, i.created_at, i.updated_at, i.ttl_minutes
      FROM ${ctx.schema}.store_items i WHERE i.id = ANY(${idsParam}::bigint[]) AND ${rowScope(op, p, now)}`;
  return { text, values: p.values };
}

/** The hits' rows a search has read, by id (null: read and not found: deleted, expired or outside the filter). */
class HitRows {
  private readonly rows = new Map<string, ItemRow | null>();

  constructor(
    private readonly db: pg.ClientBase,
    private readonly ctx: SearchContext,
    private readonly op: SearchOperation,
    private readonly now: number,
  ) {}

  /** Notes `found` as the rows of `ids` as read in one statement. */
  note(ids: readonly string[], found: readonly ItemRow[]): void {
    for (const id of ids) this.rows.set(id, null);
    for (const row of found) this.rows.set(String(row.id), row);
  }

  /** The rows of `ids`, reading those not read yet in one statement. */
  async read(ids: readonly string[]): Promise<Map<string, ItemRow | null>> {
    const missing = ids.filter((id) => !this.rows.has(id));
    if (missing.length > 0) {
      const p = new Params();
      const idsParam = p.add(missing);
      const { rows } = await this.db.query<ItemRow>(
        `SELECT ${ITEM_COLUMNS} FROM ${this.ctx.schema}.store_items i WHERE i.id = ANY(${idsParam}::bigint[]) AND ${rowScope(this.op, p, this.now)}`,
        p.values,
      );
      this.note(missing, rows);
    }
    return this.rows;
  }
}

/**
 * Hybrid search with the one ranking every engine shares (`rankHybrid` over the prefix's
 * `RecallIndex`, see `PostgresIndexCache`): BM25 with pseudo-relevance feedback, neighbour context
 * (bridges across short replies, a question lending its answer), speaker weighting, label weights;
 * with a query vector and pgvector, cosine similarity of the `recentCandidates` newest items and
 * the best `vectorCandidates` lexical candidates (only ≥ `minVectorSimilarity` counts), fused by
 * reciprocal rank. Scores are max-normalised (best hit = 1). A filter restricts the page, not the
 * ranking: hits outside it are skipped, read in chunks until the page is full. So are items expired
 * at `at.now` (the recall index holds them until they are swept: when they cost the page hits, the
 * ranking is made again without its page bound). `offset`/`limit` apply to the fused order. A
 * prefix holding more than the cache's `maxItems` indexed items is refused with STORE_CAPABILITY_MISSING.
 * A prefix already cached, without a query vector, is ranked first and synchronised in the statement
 * reading the first page's rows (one round trip); only when the change feed reached its index is it
 * ranked again, and the rows still missing read.
 */
export async function searchRanked(
  db: pg.ClientBase,
  ctx: SearchContext,
  op: WeightedSearch,
  queryVector: readonly number[] | undefined,
  at: ReadTime<string>,
): Promise<RankedItem[]> {
  const { from, to } = prefixRange(op.namespacePrefix);
  const peeked = queryVector && ctx.vectors ? undefined : ctx.cache.peek(from, to);
  let index = peeked?.index ?? (await indexOrFail(db, ctx, from, to));
  const { settings } = ctx;
  const terms = tokenize(op.query ?? "");
  const offset = op.offset ?? 0;
  const wanted = offset + (op.limit ?? 10);
  const hybrid: HybridOptions = hybridOptionsOf(settings.hybrid, op);
  if (hybrid.includeContextOnly === false || !hasFilter(op)) hybrid.limit = wanted;
  let vectorList: ScoredId[] | undefined;
  if (queryVector && ctx.vectors) {
    const lexical = [...index.score(terms, hybrid.lexicalLimit ?? 300)].sort((a, b) => b[1] - a[1]).map(([id]) => id);
    const ids = vectorCandidateIds(lexical, index.newest(settings.recentCandidates ?? settings.candidateLimit), settings.vectorCandidates);
    vectorList = await vectorHits(db, ctx, queryVector, ids);
  }
  const rank = (ranked: RecallIndex): HybridResult[] => normalizeScores(rankHybrid(terms, indexSource(ranked), vectorList ? () => vectorList : undefined, hybrid));
  const rows = new HitRows(db, ctx, op, at.now);
  let fused = rank(index);
  if (peeked) {
    const ids = fused.slice(0, wanted).map((hit) => hit.id);
    await ctx.cache.syncAlong(db, async (feed) => {
      const statement = feedAndRows(ctx, op, feed, ids, at.now);
      const read = await db.query<FeedOrItemRow>(statement.text, statement.values);
      rows.note(ids, read.rows.filter((row) => row.kind === ("R" as string)) as ItemRow[]);
      return { feed: read.rows.filter((row) => row.kind !== ("R" as string)), result: undefined };
    });
    if (!ctx.cache.unchangedSince(peeked)) {
      // A change reached the index (or it left the cache): rank what is current.
      index = ctx.cache.peek(from, to)?.index ?? (await indexOrFail(db, ctx, from, to));
      fused = rank(index);
    }
  }
  const page = async () => {
    const lexicalMax = lexicalMaxOf(fused);
    const kept: { item: RankedItem; row: ItemRow }[] = [];
    for (let start = 0; start < fused.length && kept.length < wanted; start += wanted) {
      const chunk = fused.slice(start, start + wanted);
      const byId = await rows.read(chunk.map((hit) => hit.id));
      for (const hit of chunk) {
        const row = byId.get(hit.id);
        if (row) kept.push({ item: { ...itemOf(row), score: hit.score, ranking: rankingOf(hit, lexicalMax) }, row });
      }
    }
    return { kept, cut: fused.length >= (hybrid.limit ?? Infinity) };
  };
  let result = await page();
  if (result.kept.length < wanted && result.cut) {
    // Hits the page bound let in were expired (or deleted meanwhile): rank again, unbounded.
    hybrid.limit = Infinity;
    fused = rank(index);
    result = await page();
  }
  const shown = result.kept.slice(offset, wanted);
  itemsOf(shown.map((k) => k.row), at);
  return shown.map((k) => k.item);
}

/** The prefix's index, synchronised (`PostgresIndexCache.indexOf`); STORE_CAPABILITY_MISSING when it is too large to index. */
async function indexOrFail(db: pg.ClientBase, ctx: SearchContext, from: string, to: string): Promise<RecallIndex> {
  const index = await ctx.cache.indexOf(db, from, to);
  if (!index) {
    throw new MemoryGraphError("STORE_CAPABILITY_MISSING", "ranked search: the prefix holds more indexed items than the Postgres store's recall index takes (maxIndexedItems)", {
      kind: "system",
    });
  }
  return index;
}
