import { sorted } from "./best-scores.js";
import { termsHeld } from "./document-terms.js";
import type { LexicalSource } from "./lexical-source.js";
import { namedIn } from "./neighbour-context.js";

/** Documents of the ranking's top that `demoteNonAnswers` reads: below them a document cannot reach a list's first places. */
export const ANSWER_WINDOW = 100;

/**
 * The best `ANSWER_WINDOW` documents of `scores`, best first, when the query names the speaker of
 * one of them (`namedIn`); undefined otherwise, and for a source without speakers.
 */
export function namedSpeakerWindow(scores: ReadonlyMap<string, number>, source: LexicalSource, queryTerms: readonly string[]): string[] | undefined {
  if (!source.speakersOf || scores.size === 0) return undefined;
  // Speakers first: a source whose documents name none (LongMemEval's) is left before any sort.
  const speakers = source.speakersOf(scores.keys());
  if (speakers.size === 0) return undefined;
  const ids = sorted(scores, ANSWER_WINDOW).map((hit) => hit.id);
  const isNamed = namedIn(queryTerms);
  return ids.some((id) => { const speaker = speakers.get(id); return speaker !== undefined && isNamed(speaker); }) ? ids : undefined;
}

/** The weights of `demoteNonAnswers` (see `HybridOptions`); 1 turns each off. */
export interface NonAnswerWeights {
  askWeight: number;
  shortWeight: number;
  shortLength: number;
  kindlessWeight: number;
}

/**
 * `scores` with what seldom answers a question about a person weighed down, among the best
 * `ANSWER_WINDOW` documents and only when the query names the speaker of one of them (`namedIn`;
 * a source without speakers is left alone): a document that asks a question (`answersOf` knows
 * its answer) by `askWeight` — it names what is asked about, its answer tells it; one of fewer
 * than `shortLength` terms by `shortWeight` ("Wow! How was it?"); and, when `kinds` (the kinds of
 * thing a list question asks for) is not empty, one holding none of them by `kindlessWeight`. The
 * factors multiply. `scores` itself when nothing is weighed; else a new map.
 */
export function demoteNonAnswers(
  scores: Map<string, number>,
  source: LexicalSource,
  queryTerms: readonly string[],
  kinds: readonly string[],
  weights: NonAnswerWeights,
): Map<string, number> {
  const { askWeight, shortWeight, shortLength, kindlessWeight } = weights;
  const kindless = kinds.length > 0 && kindlessWeight !== 1;
  if (askWeight === 1 && shortWeight === 1 && !kindless) return scores;
  const ids = namedSpeakerWindow(scores, source, queryTerms);
  if (!ids) return scores;
  const factors = new Map<string, number>();
  const weigh = (id: string, factor: number): void => void factors.set(id, (factors.get(id) ?? 1) * factor);
  if (askWeight !== 1 && source.answersOf) for (const id of source.answersOf(ids).keys()) weigh(id, askWeight);
  if (shortWeight !== 1 && source.lengthsOf) for (const [id, length] of source.lengthsOf(ids)) if (length < shortLength) weigh(id, shortWeight);
  if (kindless) {
    const held = termsHeld(source, ids, kinds);
    for (const id of ids) if (!held.get(id)?.length) weigh(id, kindlessWeight);
  }
  if (factors.size === 0) return scores;
  const out = new Map(scores);
  for (const [id, factor] of factors) out.set(id, (out.get(id) ?? 0) * factor);
  return out;
}
