import type { LexicalSource } from "./lexical-source.js";
import { tokenize } from "./tokenize.js";

/**
 * Adds neighbour context to lexical scores: each document gets `weight` × the sum of its
 * neighbours' scores (each neighbour's share scaled by `lends(neighbour, document)`, default 1),
 * and a neighbour of a scored document that had no score of its own gets one this way (the
 * answer to a question is often the turn after it). Returns the smoothed scores and, per id,
 * what the neighbours added (scaled by `receives(id)`, default 1). Pure.
 */
export function addNeighbourContext(
  scores: ReadonlyMap<string, number>,
  neighbours: ReadonlyMap<string, readonly string[]>,
  weight: number,
  receives: (id: string) => number = () => 1,
  lends: (from: string, to: string) => number = () => 1,
): { scores: Map<string, number>; context: Map<string, number> } {
  // forEach and indexed loops: no entry arrays or iterator results made (a first search on a fresh
  // instance runs this before it is optimised, and each object it makes is collected).
  const context = new Map<string, number>();
  if (weight > 0) {
    scores.forEach((score, id) => {
      const others = neighbours.get(id);
      if (!others) return;
      for (let i = 0; i < others.length; i++) {
        const other = others[i] as string;
        context.set(other, (context.get(other) ?? 0) + weight * score * lends(id, other));
      }
    });
    context.forEach((added, id) => context.set(id, added * receives(id)));
  }
  const smoothed = new Map(scores);
  context.forEach((extra, id) => smoothed.set(id, (smoothed.get(id) ?? 0) + extra));
  return { scores: smoothed, context };
}

/**
 * `neighbours` with bridges (see `HybridOptions.bridgeLength`): beside each document's own
 * neighbours, the document beyond any of them that has at most `maxLength` terms, when that one
 * carries the document's label and the short one between another (one speaker's turns around the
 * other's reply). `neighbours` itself when `maxLength` is 0 or the source cannot tell lengths and
 * labels.
 */
export function bridgeShortTurns(
  source: LexicalSource,
  neighbours: ReadonlyMap<string, readonly string[]>,
  maxLength: number,
): ReadonlyMap<string, readonly string[]> {
  if (maxLength <= 0 || !source.lengthsOf || !source.labelsOf) return neighbours;
  // Plain loops and forEach (see addNeighbourContext): this runs for each of a search's best hits,
  // and most have nothing to bridge.
  const adjacentSet = new Set<string>();
  neighbours.forEach((own) => addAll(adjacentSet, own));
  const adjacent = [...adjacentSet];
  const lengths = source.lengthsOf(adjacent);
  const beyond = source.neighboursOf(adjacent.filter((id) => (lengths.get(id) ?? Infinity) <= maxLength));
  if (beyond.size === 0) return neighbours;
  const named = new Set<string>(neighbours.keys());
  beyond.forEach((_, id) => named.add(id));
  beyond.forEach((far) => addAll(named, far));
  const labels = source.labelsOf(named);
  const bridged = new Map<string, readonly string[]>();
  neighbours.forEach((own, id) => {
    const label = labels.get(id);
    let far: string[] | undefined;
    for (let i = 0; label !== undefined && i < own.length; i++) {
      const next = own[i] as string;
      const between = labels.get(next);
      const others = between === undefined || between === label ? undefined : beyond.get(next);
      for (let j = 0; others && j < others.length; j++) {
        const other = others[j] as string;
        if (other !== id && !own.includes(other) && labels.get(other) === label) (far ??= []).push(other);
      }
    }
    bridged.set(id, far ? [...own, ...far] : own);
  });
  return bridged;
}

function addAll(set: Set<string>, ids: readonly string[]): void {
  for (let i = 0; i < ids.length; i++) set.add(ids[i] as string);
}

/** Whether a speaker is named by a query of `queryTerms`: every term of the name is one of them (remembered per name). */
export function namedIn(queryTerms: readonly string[]): (speaker: string) => boolean {
  const inQuery = new Set(queryTerms);
  const named = new Map<string, boolean>();
  return (speaker) => {
    let known = named.get(speaker);
    if (known === undefined) {
      const terms = tokenize(speaker);
      named.set(speaker, (known = terms.length > 0 && terms.every((term) => inQuery.has(term))));
    }
    return known;
  };
}

/**
 * `scores` with what others said weighed by `weight` when the best document with a known speaker
 * was said by someone the query names (see `HybridOptions.speakerWeight`); `scores` itself otherwise.
 */
export function favourNamedSpeaker(scores: Map<string, number>, queryTerms: readonly string[], source: LexicalSource, weight: number): Map<string, number> {
  if (weight === 1 || !source.speakersOf || scores.size === 0) return scores;
  const speakers = source.speakersOf(scores.keys());
  const isNamed = namedIn(queryTerms);
  let bestNamed = -Infinity;
  let bestOther = -Infinity;
  for (const [id, speaker] of speakers) {
    const score = scores.get(id) ?? 0;
    if (isNamed(speaker)) bestNamed = Math.max(bestNamed, score);
    else bestOther = Math.max(bestOther, score);
  }
  if (bestNamed === -Infinity || bestOther === -Infinity || bestNamed < bestOther) return scores;
  const weighed = new Map(scores);
  for (const [id, speaker] of speakers) if (!isNamed(speaker)) weighed.set(id, (scores.get(id) ?? 0) * weight);
  return weighed;
}
