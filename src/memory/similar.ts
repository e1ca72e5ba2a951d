import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { BaseStore, Item } from "@langchain/langgraph-checkpoint";
import { embedOrSkip } from "./ranking/embed-or-skip.js";
import { recordTerms } from "./ranking/event-marker.js";
import { RecallIndex, cosine, normalizeScores, rankHybrid, recordIndexText, recordTraits, tokenize } from "./ranking/index.js";
import { hybridOptionsOf, indexSource, lexicalMaxOf, rankingOf } from "./ranking/index-source.js";
import type { HybridOptions } from "./ranking/hybrid.js";
import type { TranscriptRecord } from "./records.js";
import { walkEntityGraph } from "./entities/entity-walk.js";
import { fuseGraphCandidates } from "./entities/graph-fusion.js";
import type { GraphWalkOptions } from "./limits.js";
import type { MemoryScope } from "./scope.js";
import type { RankedItem, Ranking, VectorSearchOperation, WeightedSearch, WeightedSearchOptions } from "./ports/store.js";
import { asksForAggregate, asksForList, asksWhere, roleWeightsFor } from "./query-subject.js";
import { relativeTimeTerms } from "./query-time.js";
import { favourTimeWindow, timeWindowOf, type TimeWindow } from "./query-window.js";
import { listAll, supportsOf } from "./store-io.js";
import { isRecallable } from "./transcript.js";

/** A transcript message found for a query, with where it came from and why it was chosen. */
export interface SimilarMessage {
  id: string;
  role: TranscriptRecord["role"];
  text: string;
  speaker?: string;
  sessionId: string;
  createdAt: string;
  /** The transcript turns this hit stands for (its own id). */
  turnIds: string[];
  score: number;
  /** Why it was chosen. */
  ranking: Ranking;
}

export interface SimilarSearch {
  query: string;
  limit: number;
  maxCandidates: number;
  minVectorScore: number;
  excludeIds: ReadonlySet<string>;
  embeddings?: EmbeddingsInterface;
  /** How many leading characters of each message's text the caller reads (see `RecallSearchOptions`); all when left out. */
  textChars?: number;
  /**
   * The query's vector, computed by the caller: given, nothing is embedded for the query; `null`
   * ranks lexically. Left out, the query is embedded with `embeddings` (by the store, or here).
   */
  queryVector?: readonly number[] | null;
  /**
   * The user's entity graph to walk from the query's entities (see entities/entity-walk.ts), its
   * reached messages fused with the store's ranking; left out (or `walk` false), it is not read.
   * `sessionId` keeps the walk's messages to one session (a search of one session's transcript).
   */
  graph?: { user: Pick<MemoryScope, "tenantId" | "userId">; sessionId?: string; options: GraphWalkOptions };
  /**
   * Weight of the kinds of thing a list question asks for (`categoryTermsOf`: "pottery",
   * "swimming" for "What activities …?") in its ranking; 0 or left out, no expansion (and the
   * table is not loaded).
   */
  categoryWeight?: number;
  /**
   * The moment the query is asked (default: now) and the weight (0..1 of the best score) added to
   * the hits written inside the window of time it names ("10 days ago": `timeWindowOf`); 0 or left
   * out, no window is read. With a window, the store's list is read `TIME_WINDOW_DEPTH` deep.
   */
  asOf?: Date;
  timeWindowWeight?: number;
}

/** How deep a list the time window reorders. */
export const TIME_WINDOW_DEPTH = 50;

/**
 * Finds stored messages under `prefix` similar to the query. A store that ranks queries itself
 * does the work; for any other store, at most `maxCandidates` items are ranked here with the same
 * hybrid ranking (`rankHybrid`: BM25 with feedback and neighbour context, fused with vector
 * similarity; vector hits below `minVectorScore` do not count). A query about the user's own
 * words weighs the assistant's messages down (`roleWeightsFor`).
 */
export async function searchSimilar(store: BaseStore, prefix: string[], search: SimilarSearch): Promise<SimilarMessage[]> {
  if (!search.query.trim()) return [];
  const graph = search.graph?.options.walk ? search.graph : undefined;
  // The walk reorders the store's list: it needs a list deep enough to reorder.
  const window = (search.timeWindowWeight ?? 0) > 0 ? timeWindowOf(search.query, search.asOf ?? new Date()) : undefined;
  const wanted = Math.max(search.limit + search.excludeIds.size, graph ? graph.options.candidates : 0, window ? TIME_WINDOW_DEPTH : 0);
  const { read, where } = readQuery(search.query);
  const kinds = (read.asksForList || where) && (search.categoryWeight ?? 0) > 0 ? await categoryTermsFor(search.query, where) : [];
  const options: WeightedSearchOptions = {
    query: search.query,
    limit: wanted,
    withNeighbours: true,
    textChars: search.textChars,
    ...read,
    ...(kinds.length > 0 ? { categoryTerms: kinds, categoryWeight: search.categoryWeight } : {}),
  };
  const [ranked, reached] = await Promise.all([
    supportsOf(store).rankedSearch
      ? rankedByStore(store, prefix, search, options)
      : rankHere((await listAll(store, prefix, { cap: search.maxCandidates })).filter((item) => isRecallable(item.value)), search, hybridOptionsOf(undefined, options)),
    graph ? walkEntityGraph(store, graph.user, search.query, graph.options) : Promise.resolve([]),
  ]);
  const inScope = graph?.sessionId === undefined ? reached : reached.filter((c) => c.sessionId === graph.sessionId);
  const fused = graph && inScope.length > 0 ? await fuseGraphCandidates(store, graph.user, ranked, inScope, graph.options.weight) : ranked;
  const hits = window ? inTimeWindowFirst(fused, window, search.timeWindowWeight ?? 0) : fused;
  return hits
    .filter((item) => !search.excludeIds.has(item.key) && isRecallable(item.value))
    .slice(0, search.limit)
    .map((item) => toSimilar(item));
}

/**
 * What `searchSimilar` reads from the query alone (`read`: the store's options it sets): whose
 * words it weighs down (`roleWeightsFor`), whether it asks for a list or for a sum or order, the
 * terms of its relative time; and whether it asks where something is (for the kinds of place).
 */
export function readQuery(query: string): { read: Pick<WeightedSearchOptions, "labelWeights" | "asksForList" | "asksForAggregate" | "timeTerms">; where: boolean } {
  const labelWeights = roleWeightsFor(query);
  const list = asksForList(query);
  const aggregate = !list && asksForAggregate(query);
  const timeTerms = relativeTimeTerms(query);
  const read = {
    ...(labelWeights ? { labelWeights } : {}),
    ...(list ? { asksForList: true } : {}),
    ...(aggregate ? { asksForAggregate: true } : {}),
    ...(timeTerms.length > 0 ? { timeTerms } : {}),
  };
  return { read, where: asksWhere(query) };
}

/**
 * The category table's module, imported on the first list or where question and kept: each `import()`
 * of a loaded module still resolves its specifier (about 40 µs under plain Node, 0.3–0.8 ms under tsx's
 * loader, which resolves on another thread).
 */
let categoryKinds: Promise<typeof import("./ranking/category-kinds.js")> | undefined;

/** The kinds of what a list question asks for (and of place, for a "Where …?" question); the table is read only here, on first use. */
async function categoryTermsFor(query: string, where: boolean): Promise<string[]> {
  const { categoryTermsOf, PLACE_CATEGORY } = await (categoryKinds ??= import("./ranking/category-kinds.js"));
  return categoryTermsOf(tokenize(query), where ? [PLACE_CATEGORY] : []);
}

async function rankedByStore(store: BaseStore, prefix: string[], search: SimilarSearch, options: WeightedSearchOptions): Promise<RankedItem[]> {
  if (search.queryVector === undefined) return store.search(prefix, options);
  const op: VectorSearchOperation & WeightedSearch = { namespacePrefix: prefix, ...options, queryVector: search.queryVector };
  const [hits] = await store.batch([op]);
  return hits as RankedItem[];
}

/**
 * Candidates in the `RecallIndex` every engine ranks with: their index text's terms (items with
 * none are left out, as the stores leave them out), their traits, and their turn order within their
 * namespace (by `createdAt`, ties in listing order).
 */
function localIndex(candidates: readonly Item[], texts: readonly string[]): RecallIndex {
  const index = new RecallIndex();
  const ordered = candidates.map((item, i) => ({ item, i, at: createdOf(item) })).sort((a, b) => a.at.localeCompare(b.at) || a.i - b.i);
  ordered.forEach(({ item, i }, order) => {
    const terms = recordTerms(item.value, texts[i] ?? "");
    if (terms.length > 0) index.add(item.key, terms, item.namespace.join("\u001f"), order, recordTraits(item.value));
  });
  return index;
}

function createdOf(item: Item): string {
  const created = (item.value as Partial<TranscriptRecord>).createdAt;
  return typeof created === "string" ? created : item.createdAt.toISOString();
}

async function rankHere(candidates: Item[], search: SimilarSearch, hybrid: HybridOptions): Promise<RankedItem[]> {
  const texts = candidates.map((item) => recordIndexText(item.value) ?? "");
  let vectorSearch: (() => { id: string; score: number }[]) | undefined;
  const embeddings = search.embeddings;
  const given = search.queryVector;
  const vectors =
    embeddings && candidates.length > 0 && given !== null
      ? await embedOrSkip("query", () => Promise.all([given ? Promise.resolve([...given]) : embeddings.embedQuery(search.query), embeddings.embedDocuments(texts)]))
      : undefined;
  if (vectors) {
    const [queryVector, docVectors] = vectors;
    const hits = candidates
      .map((item, i) => ({ id: item.key, score: cosine(queryVector, docVectors[i] ?? []) }))
      .filter((hit) => hit.score >= search.minVectorScore)
      .sort((a, b) => b.score - a.score);
    vectorSearch = () => hits;
  }
  const fused = normalizeScores(rankHybrid(tokenize(search.query), indexSource(localIndex(candidates, texts)), vectorSearch, hybrid));
  const lexicalMax = lexicalMaxOf(fused);
  const byId = new Map(candidates.map((item) => [item.key, item]));
  return fused.flatMap((hit) => {
    const item = byId.get(hit.id);
    if (!item) return [];
    return [{ ...item, score: hit.score, ranking: rankingOf(hit, lexicalMax) }];
  });
}

/** `favourTimeWindow` over ranked items (by their record's `createdAt`), each one's `ranking.fused` its new score. */
function inTimeWindowFirst(items: readonly RankedItem[], window: TimeWindow, weight: number): RankedItem[] {
  const favoured = favourTimeWindow(items, window, weight, (item) => createdOf(item));
  return favoured.map((item) => ({ ...item, ranking: { ...(item.ranking ?? {}), fused: item.score ?? 0 } }));
}

function toSimilar(item: RankedItem): SimilarMessage {
  const record = item.value as TranscriptRecord;
  const score = item.score ?? 0;
  const similar: SimilarMessage = {
    id: item.key,
    role: record.role,
    text: record.text,
    sessionId: record.sessionId,
    createdAt: record.createdAt,
    turnIds: [item.key],
    score,
    ranking: item.ranking ?? { fused: score },
  };
  if (record.speaker) similar.speaker = record.speaker;
  return similar;
}
