import type { ScoredId } from "./bm25.js";
import { bestIds, sorted } from "./best-scores.js";
import { fuseRankings, type FusedResult, type RankedList } from "./fusion.js";
import { demoteRepeats, spreadAcrossGroups } from "./diversity.js";
import { EVENT_MARKER, favourEvents } from "./event-marker.js";
import type { LexicalSource } from "./lexical-source.js";
import { checkHybridOptions, HYBRID_DEFAULTS, type HybridOptions } from "./hybrid-options.js";
import { demoteNonAnswers, namedSpeakerWindow } from "./answer-order.js";
import { addNeighbourContext, bridgeShortTurns, favourNamedSpeaker } from "./neighbour-context.js";

export type { LexicalSource } from "./lexical-source.js";
export type { HybridOptions } from "./hybrid-options.js";
export { addNeighbourContext } from "./neighbour-context.js";


/** A hybrid result: fused order plus the parts that explain it. */
export interface HybridResult extends FusedResult {
  /** Lexical score before neighbour context (query terms plus weighted expansion terms). */
  lexical?: number;
  /** What the neighbours added to the lexical score. */
  context?: number;
}

/**
 * The terms to expand a query with (pseudo-relevance feedback): the terms most frequent across
 * `feedback` documents (the first pass's best), counted with repetition, that are not query terms
 * and pass `allowed`; ties keep first appearance. Pure.
 */
export function expansionTerms(
  queryTerms: readonly string[],
  feedback: readonly (readonly string[])[],
  count: number,
  allowed: (term: string) => boolean = () => true,
): string[] {
  const inQuery = new Set(queryTerms);
  const counts = new Map<string, number>();
  for (const terms of feedback) for (const term of terms) if (!inQuery.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
  const ranked: { term: string; n: number; i: number }[] = [];
  counts.forEach((n, term) => void ranked.push({ term, n, i: ranked.length }));
  ranked.sort((a, b) => b.n - a.n || a.i - b.i);
  // `allowed` asked best first, only until `count` pass (it looks each term up): the same terms as
  // filtering first, since a term's count and first appearance do not depend on the others.
  const out: string[] = [];
  const want = Math.trunc(Math.max(0, count));
  for (const { term } of ranked) {
    if (out.length >= want) break;
    if (allowed(term)) out.push(term);
  }
  return out;
}


/**
 * The query's distinct terms split in two: those scored as its topic, and those of `timeTerms`
 * (see `HybridOptions.timeTerms`) scored apart at their weight. Every term stays with the topic
 * when the weight is 1 or when only time terms would be left. Pure.
 */
export function splitTimeTerms(queryTerms: readonly string[], timeTerms: readonly string[], weight: number): { terms: string[]; timed: string[] } {
  const all = [...new Set(queryTerms)];
  if (weight === 1 || timeTerms.length === 0) return { terms: all, timed: [] };
  const isTime = new Set(timeTerms);
  const terms = all.filter((term) => !isTime.has(term));
  return terms.length === 0 ? { terms: all, timed: [] } : { terms, timed: all.filter((term) => isTime.has(term)) };
}

/** Scales the scores of labelled documents by their label's weight, in place; the identity without weights or labels. */
function labelWeigher(source: LexicalSource, weights: Readonly<Record<string, number>>): (scores: Map<string, number>) => Map<string, number> {
  if (!source.labelsOf || Object.keys(weights).length === 0) return (scores) => scores;
  const labelsOf = source.labelsOf.bind(source);
  return (scores) => {
    labelsOf(scores.keys()).forEach((label, id) => {
      const weight = weights[label];
      if (weight !== undefined) scores.set(id, (scores.get(id) ?? 0) * weight);
    });
    return scores;
  };
}

/**
 * Ranks documents for a query: (1) BM25 over the query terms, scaled by `labelWeights` (scored
 * again with `b` = `namedLengthNorm` when the query names a speaker of the best documents); (2)
 * pseudo-relevance feedback — the best `feedbackDocs` documents give `feedbackTerms` expansion
 * terms (none held by more than `feedbackMaxShare` of the documents, when the source can tell),
 * whose BM25 scores (scaled alike) are added at `feedbackWeight`, and those of `categoryTerms` (the
 * kinds of what a list question asks for, under the same share) at `categoryWeight`, and for a list
 * question `eventWeight` of the best score to its named speaker's first-person events
 * (`favourEvents`); (3) neighbour context
 * (`addNeighbourContext`, across another speaker's short reply too, see `bridgeLength`; a question
 * lends its answer `questionLend` times more, a document receives in proportion to its label's
 * weight and to how short it is), then `speakerWeight` on what others said when the query names
 * the speaker of the best document, `groupDecay`, and `repeatWeight` on a conversation's repeats
 * (`demoteRepeats`; `listRepeatWeight` for a list question), and, when the query names a speaker, `askWeight`,
 * `shortWeight` and `kindlessWeight` on what asks, says little or names no kind asked for (`demoteNonAnswers`); (4) reciprocal-rank fusion of that lexical list with the hits
 * of `vectorSearch` (given the first pass's candidates, best first; similarities already filtered
 * by the caller's minimum), the vector list weighted
 * `vectorWeight`. Returns every document either list holds (at most `limit`), best first, with
 * its parts. No query terms and no vector hits give [].
 */
export function rankHybrid(
  queryTerms: readonly string[],
  source: LexicalSource,
  vectorSearch: ((lexicalCandidates: readonly string[]) => readonly ScoredId[]) | undefined,
  options: HybridOptions = {},
): HybridResult[] {
  const given = { ...HYBRID_DEFAULTS, ...options };
  checkHybridOptions(given);
  const list = { neighbourWeight: given.listNeighbourWeight, speakerWeight: given.listSpeakerWeight, repeatWeight: given.listRepeatWeight, askWeight: given.listAskWeight };
  const o = given.listQuery || (given.aggregateQuery && given.aggregateAsList) ? { ...given, ...list, listQuery: true } : given;
  const { terms, timed } = splitTimeTerms(queryTerms, o.timeTerms, o.timeTermWeight);
  const weigh = labelWeigher(source, o.labelWeights);
  let lexical = terms.length > 0 ? weigh(source.score(terms, o.lexicalLimit, o.lengthNorm)) : new Map<string, number>();
  // A question about a person is answered by what they tell at length, not by the short replies around it.
  const lengthNorm = o.namedLengthNorm !== undefined && o.namedLengthNorm !== o.lengthNorm && namedSpeakerWindow(lexical, source, terms) ? o.namedLengthNorm : o.lengthNorm;
  if (lengthNorm !== o.lengthNorm) lexical = weigh(source.score(terms, o.lexicalLimit, lengthNorm));
  const vector = vectorSearch?.(sorted(lexical).map((hit) => hit.id));
  // Terms in a large share of documents (a speaker's name, a year) say nothing about the topic.
  const share = source.documentShare?.bind(source);
  const rare = (term: string): boolean => term !== EVENT_MARKER && (!share || share(term) <= o.feedbackMaxShare);
  const expand = (extra: readonly string[], weight: number): void => {
    if (extra.length > 0 && weight > 0) weigh(source.score(extra, o.lexicalLimit, lengthNorm)).forEach((score, id) => lexical.set(id, (lexical.get(id) ?? 0) + weight * score));
  };
  expand(timed, o.timeTermWeight);
  if (o.feedbackDocs > 0 && o.feedbackTerms > 0 && o.feedbackWeight > 0 && lexical.size > 0) {
    const top = bestIds(lexical, o.feedbackDocs);
    const termsOf = source.termsOf(top);
    expand(expansionTerms([...terms, ...timed], top.map((id) => termsOf.get(id) ?? []), o.feedbackTerms, rare), o.feedbackWeight);
  }
  const inQuery = new Set([...terms, ...timed]);
  const kinds = o.categoryWeight > 0 ? o.categoryTerms.filter((term) => !inQuery.has(term) && rare(term)) : [];
  expand(kinds, o.categoryWeight);
  if (o.listQuery) favourEvents(lexical, source, terms, o.eventWeight);
  let final = lexical;
  let context = new Map<string, number>();
  if (o.neighbourWeight > 0 && lexical.size > 0) {
    const bestScores =
      lexical.size <= o.neighbourCandidates ? lexical : new Map(sorted(lexical, o.neighbourCandidates).map((hit) => [hit.id, hit.score]));
    const neighbours = bridgeShortTurns(source, source.neighboursOf([...bestScores.keys()]), o.bridgeLength);
    const receivers: string[] = [];
    const demoted = new Map<string, number>();
    for (const own of neighbours.values()) {
      for (let i = 0; i < own.length; i++) {
        const id = own[i] as string;
        if (demoted.has(id) || (!o.includeContextOnly && !lexical.has(id))) continue;
        receivers.push(id);
        demoted.set(id, 1);
      }
    }
    const lengths = o.contextHalfLength > 0 ? source.lengthsOf?.(receivers) : undefined;
    // A demoted document is demoted in what its neighbours lend it too.
    weigh(demoted);
    const receives = (id: string): number =>
      (demoted.get(id) ?? 1) * (lengths ? o.contextHalfLength / (o.contextHalfLength + (lengths.get(id) ?? 0)) : 1);
    const answers = o.questionLend !== 1 && source.answersOf ? source.answersOf(bestScores.keys()) : undefined;
    const lends = answers ? (from: string, to: string) => (answers.get(from) === to ? o.questionLend : 1) : undefined;
    ({ scores: final, context } = addNeighbourContext(bestScores, neighbours, o.neighbourWeight, receives, lends));
  }
  if (!o.includeContextOnly) {
    for (const id of context.keys()) if (!lexical.has(id)) final.delete(id);
  }
  final = favourNamedSpeaker(final, terms, source, o.speakerWeight);
  final = spreadAcrossGroups(final, source, o.groupDecay);
  final = demoteRepeats(final, source, [...terms, ...kinds], o.repeatWeight);
  final = demoteNonAnswers(final, source, terms, o.listQuery ? kinds : [], o);
  // Alone, the lexical list is the fused order (reciprocal ranks fall with rank): fusion need see only the first `limit`.
  const lexicalCut = vector && vector.length > 0 ? o.lexicalLimit : Math.min(o.lexicalLimit, o.limit);
  const lists: RankedList[] = [{ name: "lexical", results: sorted(final, lexicalCut) }];
  if (vector && vector.length > 0) lists.push({ name: "vector", results: vector, weight: o.vectorWeight });
  const fused = fuseRankings(lists, { k: o.rrfK });
  if (fused.length > o.limit) fused.length = Math.floor(o.limit);
  // fuseRankings made these objects for us: add the explanation to them rather than copy them.
  for (const hit of fused as HybridResult[]) {
    const own = lexical.get(hit.id);
    if (own !== undefined) hit.lexical = own;
    const added = context.get(hit.id);
    if (added !== undefined) hit.context = added;
  }
  return fused;
}
