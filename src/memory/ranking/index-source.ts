import type { Room } from "./doc-table.js";
import type { DocTraits } from "./document-text.js";
import type { HybridOptions, HybridResult, LexicalSource } from "./hybrid.js";
import { RecallIndex } from "./recall-index.js";

/**
 * The one lexical source of ranked search on every engine: an in-process `RecallIndex` (BM25
 * postings, neighbours by turn order, traits) as `rankHybrid` reads it. An engine supplies the
 * rows the index is built from and nothing else, so no engine ranks differently.
 */
export function indexSource(index: RecallIndex): LexicalSource & { newest(n: number): string[] } {
  return {
    newest: (n) => index.newest(n),
    documentShare: (term) => index.documentShare(term),
    score: (terms, wanted, lengthNorm) => index.score(terms, wanted, lengthNorm),
    termsOf: (ids) => index.termsOf(ids),
    heldOf: (ids, terms) => index.heldOf(ids, terms),
    neighboursOf: (ids) => index.neighboursOf(ids),
    lengthsOf: (ids) => index.lengthsOf(ids),
    labelsOf: (ids) => index.labelsOf(ids),
    answersOf: (ids) => index.answersOf(ids),
    speakersOf: (ids) => index.speakersOf(ids),
    groupsOf: (ids) => index.groupsOf(ids),
  };
}

/** A record's traits as the stores keep them, in plain columns written with the record (see `recordTraits`). */
export interface TraitColumns {
  label: string | null;
  speaker: string | null;
  /** Whether it asks a question; SQLite gives 0/1. */
  asks: boolean | number | null;
}

/** `DocTraits` from a row's trait columns. Pure. */
export function traitsOfColumns(row: TraitColumns): DocTraits {
  const traits: DocTraits = {};
  if (row.label !== null) traits.label = row.label;
  if (row.asks === true || row.asks === 1) traits.asks = true;
  if (row.speaker !== null && row.speaker !== "") traits.speaker = row.speaker;
  return traits;
}

/**
 * The `RecallIndex` of stored rows (space-joined `tokens` and trait columns; `place` gives each its
 * id, group and order), its arrays sized once from a count of the terms, then packed. An engine's
 * cache builds a user's index with it.
 */
export function buildRecallIndex<R extends TraitColumns & { tokens: string }>(rows: readonly R[], place: (row: R) => { id: string; group: string; order: number }): RecallIndex {
  const index = new RecallIndex();
  reserveRows(index, rows);
  for (const row of rows) {
    const { id, group, order } = place(row);
    index.add(id, row.tokens.split(" "), group, order, traitsOfColumns(row));
  }
  index.pack();
  return index;
}

/**
 * The room `rows` (space-joined `tokens`; null: a removal) take in an index: documents, and their
 * terms counted with repeats (at least their pairs). Made before they are added, so an index grows
 * its arrays once and to size (`reserveRows`), or a restored one is allocated with it
 * (`RecallIndex.fromSnapshot`): a restored index's arrays are exactly full, and growing them copies
 * every column and the pool into new memory (a LongMemEval user's ~240 KB pool), page by page the
 * largest cost of a first search on a fresh instance.
 */
export function roomFor(rows: readonly { tokens: string | null }[]): Room {
  let documents = 0;
  let pairs = 0;
  for (const { tokens } of rows) {
    if (tokens === null) continue;
    documents += 1;
    pairs += 1;
    for (let i = tokens.indexOf(" "); i >= 0; i = tokens.indexOf(" ", i + 1)) pairs += 1;
  }
  return { documents, pairs };
}

/** Makes room in `index` for `rows` at once (`roomFor`). */
export function reserveRows(index: RecallIndex, rows: readonly { tokens: string | null }[]): void {
  const room = roomFor(rows);
  if (room.documents > 0) index.reserve(room);
}

/** The trait columns of `traits`, as a store writes them. Pure. */
export function columnsOfTraits(traits: DocTraits): TraitColumns {
  return { label: traits.label ?? null, speaker: traits.speaker ?? null, asks: traits.asks === true };
}

/** What a ranked search asks beside the store's own tuning: label weights, a list or aggregate query, its category's kinds, its relative time's terms and neighbour-only hits (see `RecallSearchOptions`). */
export function hybridOptionsOf(
  tuning: HybridOptions | undefined,
  op: { labelWeights?: Readonly<Record<string, number>>; asksForList?: boolean; asksForAggregate?: boolean; categoryTerms?: readonly string[]; categoryWeight?: number; timeTerms?: readonly string[]; withNeighbours?: boolean },
): HybridOptions {
  const { labelWeights, asksForList, asksForAggregate, categoryTerms, categoryWeight, timeTerms, withNeighbours } = op;
  return {
    ...tuning,
    ...(labelWeights ? { labelWeights } : {}),
    ...(asksForList ? { listQuery: true } : {}),
    ...(asksForAggregate ? { aggregateQuery: true } : {}),
    ...(categoryTerms && categoryTerms.length > 0 ? { categoryTerms } : {}),
    ...(categoryWeight !== undefined ? { categoryWeight } : {}),
    ...(timeTerms && timeTerms.length > 0 ? { timeTerms } : {}),
    ...(withNeighbours !== undefined ? { includeContextOnly: withNeighbours } : {}),
  };
}

/** Why a hit ranks where it does (the store port's `Ranking`): normalised lexical and context scores, cosine, fused. */
export interface HitRanking {
  lexical?: number;
  context?: number;
  vector?: number;
  fused: number;
}

/** The provenance of a max-normalised hybrid hit, its lexical and context parts divided by the best lexical score. Pure. */
export function rankingOf(hit: HybridResult, lexicalMax: number): HitRanking {
  const ranking: HitRanking = { fused: hit.score };
  if (hit.lexical !== undefined && lexicalMax > 0) ranking.lexical = hit.lexical / lexicalMax;
  if (hit.context !== undefined && lexicalMax > 0) ranking.context = hit.context / lexicalMax;
  const vectorPart = hit.parts.vector;
  if (vectorPart) ranking.vector = vectorPart.score;
  return ranking;
}

/** The best lexical score among `hits` (0 when none has one). */
export function lexicalMaxOf(hits: readonly HybridResult[]): number {
  let max = 0;
  for (const hit of hits) if ((hit.lexical ?? 0) > max) max = hit.lexical ?? 0;
  return max;
}

/**
 * The ids whose vectors are compared with the query's: the `recent` newest written and the best
 * `vectorCandidates` lexical candidates (`lexicalIds` best first; all when unset). The same set on
 * every engine.
 */
export function vectorCandidateIds(lexicalIds: readonly string[], recent: readonly string[], vectorCandidates: number | undefined): string[] {
  const ids = new Set(recent);
  const count = Math.min(lexicalIds.length, vectorCandidates ?? Infinity);
  for (let i = 0; i < count; i++) ids.add(lexicalIds[i] as string);
  return [...ids];
}
