import { stem } from "./stem.js";
import { ENGLISH_STOP_WORDS, THAI_STOP_WORDS } from "./stop-words.js";

const segmenter = new Intl.Segmenter("en", { granularity: "word" });
const APOSTROPHES = /['\u2019\u02bc]/g;
const NUMBER = /^\d[\d,]*(\.\d+)?$/;
const SINGLE_LATIN_LETTER = /^[a-z]$/;

/**
 * Turns text into ranking terms, the same way for every ranker and store of memory-graph:
 * NFKC-normalised and lower-cased; split into words by `Intl.Segmenter` (which also splits Thai,
 * written without spaces, by dictionary); only word-like segments kept; English and Thai stop
 * words and lone Latin letters dropped; English words stemmed (`stem`); numbers kept (thousands
 * separators removed). Words of other languages, e.g. romanised Hindi, pass through unchanged
 * except for stemming of pure a–z words. Pure; order of appearance kept, duplicates kept.
 */
export function tokenize(text: string): string[] {
  // A query is tokenized by its embedder and by the ranker in the same turn: remember the last few.
  const known = recent.get(text);
  if (known) return known.slice();
  const tokens = segment(text);
  if (text.length <= MEMO_MAX_CHARS) {
    if (recent.size >= MEMO_SIZE) recent.delete(recent.keys().next().value as string);
    recent.set(text, tokens.slice());
  }
  return tokens;
}

const MEMO_SIZE = 8;
const MEMO_MAX_CHARS = 2000;
const recent = new Map<string, string[]>();

function segment(text: string): string[] {
  const tokens: string[] = [];
  const normalized = text.normalize("NFKC").toLowerCase();
  for (const part of segmenter.segment(normalized)) {
    if (!part.isWordLike) continue;
    const token = termOf(part.segment);
    if (token !== undefined) tokens.push(token);
  }
  return tokens;
}

function termOf(segment: string): string | undefined {
  if (NUMBER.test(segment)) return segment.replace(/,/g, "");
  const word = segment.replace(APOSTROPHES, "");
  if (word === "" || SINGLE_LATIN_LETTER.test(word)) return undefined;
  if (ENGLISH_STOP_WORDS.has(word) || THAI_STOP_WORDS.has(word)) return undefined;
  return stem(word);
}

/** How often each term occurs in `tokens`. Pure. */
export function termFrequencies(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}
