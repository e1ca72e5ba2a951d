import { FIRST_PERSON_EVENT } from "./first-person-event.js";
import type { LexicalSource } from "./lexical-source.js";
import { namedIn } from "./neighbour-context.js";
import { tokenize } from "./tokenize.js";

/**
 * The term a message's indexed terms carry when its text tells what its speaker did
 * (`FIRST_PERSON_EVENT`: "I just signed up for a pottery class"). `tokenize` never gives it (it
 * keeps no "§"), so no query or text matches it; SQLite's ascii FTS tokenizer keeps it whole.
 */
export const EVENT_MARKER = "§event";

/**
 * The terms a record is indexed by: `tokenize(text)` (its index text, see `recordIndexText`),
 * then `EVENT_MARKER` when the record names its speaker and its string `text` tells a first-person
 * event (only a named speaker's events are favoured, so the marker is kept off the rest: it would
 * only lengthen them). Every engine computes a write's terms here. Pure.
 */
export function recordTerms(value: unknown, text: string): string[] {
  const terms = tokenize(text);
  const { text: own, speaker } = (value ?? {}) as { text?: unknown; speaker?: unknown };
  const marked = typeof speaker === "string" && speaker.trim() !== "" && typeof own === "string" && FIRST_PERSON_EVENT.test(own);
  if (marked && terms.length > 0) terms.push(EVENT_MARKER);
  return terms;
}

/**
 * Adds `weight` times the best score to every scored document (own score > 0) that carries
 * `EVENT_MARKER` and was said by someone the query names (every term of their name is a query
 * term, see `LexicalSource.speakersOf`), in place: a list question about Ann ("What activities
 * does Ann do?") is answered by what Ann tells she did, turns that share little with the question
 * but her name. Documents without the marker (rows written before it) or without a named speaker
 * keep their score; `weight` 0 changes nothing.
 */
export function favourEvents(scores: Map<string, number>, source: LexicalSource, queryTerms: readonly string[], weight: number): void {
  if (!(weight > 0) || scores.size === 0 || !source.speakersOf) return;
  const marked = [...source.score([EVENT_MARKER], Number.MAX_SAFE_INTEGER).keys()].filter((id) => scores.has(id));
  if (marked.length === 0) return;
  const isNamed = namedIn(queryTerms);
  let best = 0;
  for (const score of scores.values()) if (score > best) best = score;
  for (const [id, speaker] of source.speakersOf(marked)) {
    const own = scores.get(id) ?? 0;
    if (own > 0 && isNamed(speaker)) scores.set(id, own + weight * best);
  }
}
