import { MemoryGraphError } from "../../errors.js";
import type { ScoredId } from "./bm25.js";
import { bestIds, sorted } from "./best-scores.js";
import { fuseRankings, type FusedResult, type RankedList } from "./fusion.js";
import { demoteRepeats, spreadAcrossGroups } from "./diversity.js";
import { EVENT_MARKER, favourEvents } from "./event-marker.js";
import type { LexicalSource } from "./lexical-source.js";
import { addNeighbourContext, bridgeShortTurns, favourNamedSpeaker } from "./neighbour-context.js";
import { termFrequencies } from "./tokenize.js";

export type { LexicalSource } from "./lexical-source.js";
export { addNeighbourContext } from "./neighbour-context.js";

/** Tuning of `rankHybrid`; the defaults were chosen on a development conversation set. */
export interface HybridOptions {
  /**
   * BM25's length normalisation `b` (0..1) for this ranking's lexical passes; unset, the index's
   * own (0.75). Lower favours the long turns that tell what someone did over short replies.
   */
  lengthNorm?: number;
  /** Documents of the first pass whose terms feed pseudo-relevance feedback; 0 turns it off. Default 3. */
  feedbackDocs?: number;
  /** Expansion terms taken from them; default 5. */
  feedbackTerms?: number;
  /** Terms found in more than this share of documents are never expansion terms; default 0.05. */
  feedbackMaxShare?: number;
  /** Weight of the expansion terms' BM25 score against the query's; default 0.2. */
  feedbackWeight?: number;
  /** Share of each neighbour's lexical score a document receives (see `contextHalfLength`); 0 turns it off. Default 0.5. */
  neighbourWeight?: number;
  /**
   * A document of this many terms receives half of `neighbourWeight`, one of n terms
   * `contextHalfLength / (contextHalfLength + n)` of it: a short turn ("Yes, last Tuesday!") means
   * what its neighbours say, a long one stands alone. Needs the source's `lengthsOf`; 0 gives every
   * document the whole weight. Default 60 (chosen on LoCoMo and LongMemEval development sets together).
   */
  contextHalfLength?: number;
  /**
   * Whether a document found only as a neighbour (no lexical or vector match of its own) is
   * returned; default true. A store whose search must return only matches sets it false: context
   * then only reorders matches.
   */
  includeContextOnly?: boolean;
  /**
   * A document that asks a question lends the one after it (its answer, see
   * `LexicalSource.answersOf`) this many times the share it lends any neighbour; 1 turns it off.
   * Default 2 (chosen on LoCoMo and LongMemEval development sets together).
   */
  questionLend?: number;
  /**
   * A document of at most this many terms between two of another label (another speaker's reply:
   * "Wow! Where was that?") does not part them: they lend each other as neighbours do, so what
   * someone says after such a reply is found by what they said before it. Needs the source's
   * `lengthsOf` and `labelsOf`; 0 turns it off. Default 20 (chosen on LoCoMo and LongMemEval
   * development sets together).
   */
  bridgeLength?: number;
  /**
   * When the best document (after neighbour context, among those whose speaker the source knows,
   * see `LexicalSource.speakersOf`) was said by someone the query names — every term of their name
   * is a query term — what everyone else said is weighed by this factor (0..1): a question about
   * Ann is about what Ann said, unless its words point elsewhere. Applied after neighbour context,
   * so another speaker's question still lends its answer. 1 turns it off. Default 0.7 (chosen on
   * LoCoMo, whose turns name their speakers; LongMemEval's do not).
   */
  speakerWeight?: number;
  /**
   * Each document of a conversation (see `LexicalSource.groupsOf`) is weighed by this factor (0..1)
   * once for every better-scored document of the same conversation, after neighbour context and
   * `speakerWeight`, so one session's turns do not fill the top. 1 turns it off (the default).
   */
  groupDecay?: number;
  /**
   * The query asks for a list (see `asksForList`): its answers lie in several turns, often in
   * several sessions, so `listNeighbourWeight` and `listSpeakerWeight` replace `neighbourWeight`
   * and `speakerWeight`. Default false.
   */
  listQuery?: boolean;
  /** `neighbourWeight` of a list query; default 0.3 (chosen on LoCoMo and LongMemEval development sets together). */
  listNeighbourWeight?: number;
  /** `speakerWeight` of a list query; default 0.5 (chosen on LoCoMo). */
  listSpeakerWeight?: number;
  /**
   * Terms of the kinds of thing the query asks for (`categoryTermsOf`: "pottery", "swimming" for
   * "What activities …?"), scored like feedback's expansion terms (none held by more than
   * `feedbackMaxShare` of the documents, when the source can tell) and added at `categoryWeight`.
   * Default none.
   */
  categoryTerms?: readonly string[];
  /** Weight of `categoryTerms`' BM25 score against the query's; 0 turns them off. Default 0.5 (chosen on LoCoMo and LongMemEval development sets together). */
  categoryWeight?: number;
  /** A list query adds this share of its best score to its named speaker's first-person events (`favourEvents`); 0 is off. Default 0.3 (chosen on LoCoMo). */
  eventWeight?: number;
  /**
   * A document whose question terms (and asked kinds) a better document of its conversation all
   * holds is weighed by this factor (0..1; see `demoteRepeats`); 1 turns it off (the default).
   */
  repeatWeight?: number;
  /** `repeatWeight` of a list query; default 0.8 (chosen on LoCoMo and LongMemEval development sets together). */
  listRepeatWeight?: number;
  /** Neighbours are read for at most this many best lexical hits; default 100. */
  neighbourCandidates?: number;
  /** Lexical results kept for fusion (after feedback and context), and asked of the source per pass; default 300. */
  lexicalLimit?: number;
  /** RRF weight of the vector list (the lexical list weighs 1); default 0.3. */
  vectorWeight?: number;
  /** RRF constant; default 60. */
  rrfK?: number;
  /** Results returned, best first (the rest are cut before their provenance is assembled); default all. */
  limit?: number;
  /**
   * Per label (see `LexicalSource.labelsOf`), a factor (0..1) on the lexical score of documents
   * that carry it, applied to every pass before feedback and neighbour context, so a demoted
   * document neither feeds the expansion nor lends its score to its neighbours. Default none.
   */
  labelWeights?: Readonly<Record<string, number>>;
}

/** A hybrid result: fused order plus the parts that explain it. */
export interface HybridResult extends FusedResult {
  /** Lexical score before neighbour context (query terms plus weighted expansion terms). */
  lexical?: number;
  /** What the neighbours added to the lexical score. */
  context?: number;
}

const DEFAULTS: Required<Omit<HybridOptions, "lengthNorm">> & Pick<HybridOptions, "lengthNorm"> = {
  feedbackDocs: 3,
  feedbackTerms: 5,
  feedbackWeight: 0.2,
  feedbackMaxShare: 0.05,
  neighbourWeight: 0.5,
  contextHalfLength: 60,
  questionLend: 2,
  bridgeLength: 20,
  speakerWeight: 0.7,
  groupDecay: 1,
  listQuery: false,
  listNeighbourWeight: 0.3,
  listSpeakerWeight: 0.5,
  categoryTerms: [],
  categoryWeight: 0.5,
  eventWeight: 0.3,
  repeatWeight: 1,
  listRepeatWeight: 0.8,
  includeContextOnly: true,
  neighbourCandidates: 100,
  lexicalLimit: 300,
  vectorWeight: 0.3,
  rrfK: 60,
  limit: Infinity,
  labelWeights: {},
};

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
  const counts = termFrequencies(feedback.flat().filter((term) => !inQuery.has(term) && allowed(term)));
  return [...counts]
    .map(([term, n], i) => ({ term, n, i }))
    .sort((a, b) => b.n - a.n || a.i - b.i)
    .slice(0, Math.max(0, count))
    .map((x) => x.term);
}

function checkOptions(options: typeof DEFAULTS): void {
  if (options.lengthNorm !== undefined && !(options.lengthNorm >= 0 && options.lengthNorm <= 1)) {
    throw new MemoryGraphError("INVALID_INPUT", "rankHybrid: lengthNorm must lie in 0..1", { kind: "user", field: "lengthNorm" });
  }
  for (const [label, weight] of Object.entries(options.labelWeights)) {
    if (!(weight >= 0 && weight <= 1)) {
      throw new MemoryGraphError("INVALID_INPUT", `rankHybrid: the weight of label "${label}" must lie in 0..1`, { kind: "user", field: "labelWeights" });
    }
  }
  for (const name of ["groupDecay", "repeatWeight", "listRepeatWeight"] as const) {
    if (!(options[name] <= 1)) throw new MemoryGraphError("INVALID_INPUT", `rankHybrid: ${name} must lie in 0..1`, { kind: "user", field: name });
  }
  if (!(options.speakerWeight <= 1) || !(options.listSpeakerWeight <= 1)) {
    throw new MemoryGraphError("INVALID_INPUT", "rankHybrid: speakerWeight must lie in 0..1", { kind: "user", field: "speakerWeight" });
  }
  for (const [name, value] of Object.entries(options)) {
    if (typeof value === "boolean" || typeof value === "object") continue;
    if (!(value >= 0) || (!Number.isFinite(value) && name !== "limit")) {
      throw new MemoryGraphError("INVALID_INPUT", `rankHybrid: ${name} must be a finite number ≥ 0`, { kind: "user", field: name });
    }
  }
}

/** Scales the scores of labelled documents by their label's weight, in place; the identity without weights or labels. */
function labelWeigher(source: LexicalSource, weights: Readonly<Record<string, number>>): (scores: Map<string, number>) => Map<string, number> {
  if (!source.labelsOf || Object.keys(weights).length === 0) return (scores) => scores;
  const labelsOf = source.labelsOf.bind(source);
  return (scores) => {
    for (const [id, label] of labelsOf(scores.keys())) {
      const weight = weights[label];
      if (weight !== undefined) scores.set(id, (scores.get(id) ?? 0) * weight);
    }
    return scores;
  };
}

/**
 * Ranks documents for a query: (1) BM25 over the query terms, scaled by `labelWeights`; (2)
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
 * (`demoteRepeats`; `listRepeatWeight` for a list question); (4) reciprocal-rank fusion of that lexical list with the hits
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
  const given = { ...DEFAULTS, ...options };
  checkOptions(given);
  const list = { neighbourWeight: given.listNeighbourWeight, speakerWeight: given.listSpeakerWeight, repeatWeight: given.listRepeatWeight };
  const o = given.listQuery ? { ...given, ...list } : given;
  const terms = [...new Set(queryTerms)];
  const weigh = labelWeigher(source, o.labelWeights);
  const lexical = terms.length > 0 ? weigh(source.score(terms, o.lexicalLimit, o.lengthNorm)) : new Map<string, number>();
  const vector = vectorSearch?.(sorted(lexical).map((hit) => hit.id));
  // Terms in a large share of documents (a speaker's name, a year) say nothing about the topic.
  const share = source.documentShare?.bind(source);
  const rare = (term: string): boolean => term !== EVENT_MARKER && (!share || share(term) <= o.feedbackMaxShare);
  const expand = (extra: readonly string[], weight: number): void => {
    if (extra.length > 0) for (const [id, score] of weigh(source.score(extra, o.lexicalLimit, o.lengthNorm))) lexical.set(id, (lexical.get(id) ?? 0) + weight * score);
  };
  if (o.feedbackDocs > 0 && o.feedbackTerms > 0 && o.feedbackWeight > 0 && lexical.size > 0) {
    const top = bestIds(lexical, o.feedbackDocs);
    const termsOf = source.termsOf(top);
    expand(expansionTerms(terms, top.map((id) => termsOf.get(id) ?? []), o.feedbackTerms, rare), o.feedbackWeight);
  }
  const inQuery = new Set(terms);
  const kinds = o.categoryWeight > 0 ? o.categoryTerms.filter((term) => !inQuery.has(term) && rare(term)) : [];
  expand(kinds, o.categoryWeight);
  if (o.listQuery) favourEvents(lexical, source, terms, o.eventWeight);
  let final = lexical;
  let context = new Map<string, number>();
  if (o.neighbourWeight > 0 && lexical.size > 0) {
    const bestScores =
      lexical.size <= o.neighbourCandidates ? lexical : new Map(sorted(lexical, o.neighbourCandidates).map((hit) => [hit.id, hit.score]));
    const neighbours = bridgeShortTurns(source, source.neighboursOf([...bestScores.keys()]), o.bridgeLength);
    const receivers = new Set([...neighbours.values()].flat());
    if (!o.includeContextOnly) for (const id of receivers) if (!lexical.has(id)) receivers.delete(id);
    const lengths = o.contextHalfLength > 0 ? source.lengthsOf?.([...receivers]) : undefined;
    // A demoted document is demoted in what its neighbours lend it too.
    const demoted = weigh(new Map([...receivers].map((id) => [id, 1])));
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
  const lists: RankedList[] = [{ name: "lexical", results: sorted(final, o.lexicalLimit) }];
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
