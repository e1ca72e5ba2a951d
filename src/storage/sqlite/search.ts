import type Database from "better-sqlite3";
import type { Item, SearchOperation } from "@langchain/langgraph-checkpoint";
import { normalizeScores } from "../../memory/ranking/fusion.js";
import { rankHybrid, type HybridOptions, type LexicalSource } from "../../memory/ranking/hybrid.js";
import type { RankedItem, WeightedSearch } from "../../memory/ports/store.js";
import type { RankingSettings } from "../shared/ranking-settings.js";
import { tokenize } from "../../memory/ranking/tokenize.js";
import { filterToSql } from "./filter.js";
import { indexCacheOf } from "./index-cache.js";
import { hybridOptionsOf, indexSource, lexicalMaxOf, rankingOf } from "../../memory/ranking/index-source.js";
import { prefixRange } from "../shared/namespace.js";
import { itemColumns, LIVE, type ItemRow } from "./schema.js";
import { statement } from "./statements.js";
import { vectorHits } from "./vector-search.js";
import type { ReadTime } from "../shared/ttl.js";

/** Parsed namespaces by their stored JSON: a page of hits mostly shares a few. */
const parsedNamespaces = new Map<string, readonly string[]>();

function namespaceOf(json: string): string[] {
  let parsed = parsedNamespaces.get(json);
  if (!parsed) {
    if (parsedNamespaces.size >= 1024) parsedNamespaces.clear();
    parsedNamespaces.set(json, (parsed = JSON.parse(json) as string[]));
  }
  return parsed.slice();
}

/** Notes in `at.expiring` (when the read refreshes) the ids of the `rows` it returns that have a TTL. */
export function noteExpiring(rows: readonly ItemRow[], at: ReadTime): void {
  if (at.expiring) for (const row of rows) if (row.ttl_minutes !== null) at.expiring.push(row.id);
}

/** `rows` as items, returned by a read at `at` (see `noteExpiring`). */
export function itemsOf(rows: readonly ItemRow[], at: ReadTime): Item[] {
  noteExpiring(rows, at);
  return rows.map(itemOf);
}

/** An item row as a `BaseStore` item. */
export function itemOf(row: ItemRow): Item {
  return {
    namespace: namespaceOf(row.namespace),
    key: row.key,
    value: JSON.parse(row.value) as Record<string, unknown>,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** The SQL condition (over `store_items i`) of a search's prefix and filter, of items not expired at `now`. */
export function scopeOf(op: SearchOperation, now: number): { where: string; params: unknown[] } {
  const { from, to } = prefixRange(op.namespacePrefix);
  const filter = filterToSql(op.filter);
  return { where: `i.ns_path >= ? AND i.ns_path < ? AND ${LIVE} AND (${filter.sql})`, params: [from, to, now, ...filter.params] };
}

/** The FTS5 query for `terms`: each distinct term quoted, joined by OR; undefined when there is none. */
export function ftsQueryOf(terms: readonly string[]): string | undefined {
  const distinct = [...new Set(terms)];
  return distinct.length === 0 ? undefined : distinct.map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ");
}

/** The FTS5 table under the search's prefix and filter as a `LexicalSource`; ids are item rowids. */
function ftsSource(db: Database.Database, op: SearchOperation, limit: number, now: number): LexicalSource {
  const { where, params } = scopeOf(op, now);
  return {
    score(terms, wanted) {
      const match = ftsQueryOf(terms);
      if (match === undefined) return new Map();
      const rows = statement(
        db,
        `SELECT i.id AS id, bm25(store_fts) AS rank FROM store_fts JOIN store_items i ON i.id = store_fts.rowid
         WHERE store_fts MATCH ? AND ${where} ORDER BY rank LIMIT ?`,
      ).all(match, ...params, Math.min(limit, wanted)) as { id: number; rank: number }[];
      // FTS5's bm25() is negative, lower is better.
      return new Map(rows.map((row) => [String(row.id), -row.rank]));
    },
    termsOf(ids) {
      const rows = statement(db, "SELECT rowid AS id, terms FROM store_fts WHERE rowid IN (SELECT value FROM json_each(?))").all(
        JSON.stringify(ids.map(Number)),
      ) as { id: number; terms: string }[];
      return new Map(rows.map((row) => [String(row.id), row.terms.split(" ")]));
    },
    lengthsOf(ids) {
      const rows = statement(
        db,
        "SELECT rowid AS id, length(terms) - length(replace(terms, ' ', '')) + 1 AS n FROM store_fts WHERE rowid IN (SELECT value FROM json_each(?))",
      ).all(JSON.stringify(ids.map(Number))) as { id: number; n: number }[];
      return new Map(rows.map((row) => [String(row.id), row.n]));
    },
    labelsOf(ids) {
      const rows = statement(db, `SELECT i.id AS id, i.label AS label FROM store_items i WHERE i.id IN (SELECT value FROM json_each(?))`).all(
        JSON.stringify([...ids].map(Number)),
      ) as { id: number; label: string | null }[];
      return new Map(rows.flatMap((row) => (row.label === null ? [] : [[String(row.id), row.label] as const])));
    },
    speakersOf(ids) {
      const rows = statement(db, `SELECT i.id AS id, i.speaker AS speaker FROM store_items i WHERE i.id IN (SELECT value FROM json_each(?))`).all(
        JSON.stringify([...ids].map(Number)),
      ) as { id: number; speaker: string | null }[];
      return new Map(rows.flatMap((row) => (row.speaker === null ? [] : [[String(row.id), row.speaker] as const])));
    },
    answersOf(ids) {
      // The item written just after each asking one in its own namespace.
      const rows = statement(
        db,
        `SELECT i.id AS id, (SELECT n.id FROM store_items n WHERE n.ns_path = i.ns_path AND n.id > i.id ORDER BY n.id LIMIT 1) AS next
         FROM store_items i WHERE i.id IN (SELECT value FROM json_each(?)) AND i.asks = 1`,
      ).all(JSON.stringify([...ids].map(Number))) as { id: number; next: number | null }[];
      return new Map(rows.flatMap((row) => (row.next === null ? [] : [[String(row.id), String(row.next)] as const])));
    },
    neighboursOf(ids) {
      // The items written just before and just after each one in its own namespace.
      const rows = statement(
        db,
        `SELECT i.id AS id,
           (SELECT p.id FROM store_items p WHERE p.ns_path = i.ns_path AND p.id < i.id ORDER BY p.id DESC LIMIT 1) AS prev,
           (SELECT n.id FROM store_items n WHERE n.ns_path = i.ns_path AND n.id > i.id ORDER BY n.id LIMIT 1) AS next
         FROM store_items i WHERE i.id IN (SELECT value FROM json_each(?))`,
      ).all(JSON.stringify(ids.map(Number))) as { id: number; prev: number | null; next: number | null }[];
      return new Map(rows.map((row) => [String(row.id), [row.prev, row.next].filter((x): x is number => x !== null).map(String)]));
    },
  };
}

function hasFilter(op: SearchOperation): boolean {
  return op.filter !== undefined && Object.values(op.filter).some((v) => v !== undefined);
}

/**
 * The prefix's in-process index (see `IndexCache`) as a `LexicalSource`, for searches without a
 * filter; undefined when the search has a filter or the prefix is too large to cache.
 */
function cachedSource(db: Database.Database, op: SearchOperation): (LexicalSource & { newest(n: number): string[] }) | undefined {
  if (hasFilter(op)) return undefined;
  const { from, to } = prefixRange(op.namespacePrefix);
  const index = indexCacheOf(db).indexOf(from, to);
  return index ? indexSource(index) : undefined;
}

/** Rows of `ids` that satisfy the search's prefix and filter and have not expired, by id. */
function rowsOf(db: Database.Database, op: WeightedSearch, ids: readonly string[], now: number): Map<string, ItemRow> {
  const { where, params } = scopeOf(op, now);
  // CROSS JOIN keeps json_each outermost: one rowid lookup per id instead of a scan of the prefix.
  const rows = statement(db, `SELECT ${itemColumns(op.textChars)} FROM json_each(?) j CROSS JOIN store_items i ON i.id = j.value WHERE ${where}`).all(
    JSON.stringify(ids.map(Number)),
    ...params,
  ) as ItemRow[];
  return new Map(rows.map((row) => [String(row.id), row]));
}

/**
 * Hybrid search (see `rankHybrid`): FTS5 BM25 over the query's `tokenize` terms (up to
 * `candidateLimit` matches under the prefix and filter), pseudo-relevance feedback, neighbour
 * context from the items written beside each hit in its namespace; with a query vector, cosine
 * similarity over the best `vectorCandidates` of those candidates and the `recentCandidates` most
 * recent items (most recently written when the prefix is in the in-process index, else most
 * recently updated), counting only similarities ≥ `minVectorSimilarity`; fused by reciprocal rank. Scores are max-normalised (best
 * hit = 1). Items no source counted are not returned, nor items expired at `at.now` (the
 * in-process index still holds them until they are swept: when they cost the page hits, the
 * ranking is made again without its page bound). `offset`/`limit` apply to the fused order.
 */
export function searchRanked(
  db: Database.Database,
  op: WeightedSearch,
  queryVector: readonly number[] | undefined,
  settings: RankingSettings,
  at: ReadTime,
): RankedItem[] {
  const cached = cachedSource(db, op);
  const source = cached ?? ftsSource(db, op, settings.candidateLimit, at.now);
  const vectorSearch = queryVector
    ? (lexicalIds: readonly string[]) =>
        vectorHits(db, scopeOf(op, at.now), queryVector, lexicalIds, settings, cached?.newest(settings.recentCandidates ?? settings.candidateLimit))
    : undefined;
  const offset = op.offset ?? 0;
  const wanted = offset + (op.limit ?? 10);
  // Recall's options beside the operation's fields: weights by label (role), and neighbours of matches.
  const hybrid: HybridOptions = hybridOptionsOf(settings.hybrid, op);
  // Every hit lies inside the prefix (a neighbour shares its match's namespace) and, unless
  // context-only neighbours are let in under a filter, inside the filter: then fusion need only
  // explain the first `wanted`.
  if (hybrid.includeContextOnly === false || !hasFilter(op)) hybrid.limit = wanted;
  const page = (): { kept: RankedItem[]; rows: ItemRow[]; cut: boolean } => {
    const ranked = rankHybrid(tokenize(op.query ?? ""), source, vectorSearch, hybrid);
    const fused = normalizeScores(ranked);
    const lexicalMax = lexicalMaxOf(fused);
    const kept: RankedItem[] = [];
    const keptRows: ItemRow[] = [];
    // Neighbours found by context expansion may fall outside the filter: read in chunks until the page is full.
    for (let start = 0; start < fused.length && kept.length < wanted; start += wanted) {
      const chunk = fused.slice(start, start + wanted);
      const rows = rowsOf(db, op, chunk.map((hit) => hit.id), at.now);
      for (const hit of chunk) {
        const row = rows.get(hit.id);
        if (!row) continue;
        kept.push({ ...itemOf(row), score: hit.score, ranking: rankingOf(hit, lexicalMax) });
        keptRows.push(row);
      }
    }
    return { kept, rows: keptRows, cut: fused.length >= (hybrid.limit ?? Infinity) };
  };
  let result = page();
  if (result.kept.length < wanted && result.cut) {
    // Hits the page bound let in were expired (or deleted meanwhile): rank again, unbounded.
    hybrid.limit = Infinity;
    result = page();
  }
  noteExpiring(result.rows.slice(offset, wanted), at);
  return result.kept.slice(offset, wanted);
}
