import { stem } from "./stem.js";
import { ENGLISH_STOP_WORDS, THAI_STOP_WORDS } from "./stop-words.js";
import { isWordSpace, wordsOf } from "./words.js";

const APOSTROPHES = /['\u2019\u02bc]/g;
const NUMBER = /^\d[\d,]*(\.\d+)?$/;
const SINGLE_LATIN_LETTER = /^[a-z]$/;

/**
 * How much of a text ranking reads: the terms of a query or of a stored text, and the hashed
 * embedding, come from its first 8,000 characters (cut at whitespace, see `rankedPart`). This
 * bounds the work of one request (a prompt may be 32,000 characters) and of one stored item; a word
 * only past that point of a longer text does not make it match.
 */
export const MAX_RANKED_CHARS = 8_000;

/**
 * The part of `text` ranking reads: all of it when it has at most `MAX_RANKED_CHARS` characters,
 * else the longest prefix within that bound that ends before whitespace (a hard cut, not inside a
 * surrogate pair, when no whitespace lies in its last quarter).
 */
export function rankedPart(text: string): string {
  if (text.length <= MAX_RANKED_CHARS) return text;
  for (let i = MAX_RANKED_CHARS; i > (MAX_RANKED_CHARS * 3) / 4; i -= 1) {
    if (isWordSpace(text[i] ?? "")) return text.slice(0, i);
  }
  const code = text.charCodeAt(MAX_RANKED_CHARS - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? MAX_RANKED_CHARS - 1 : MAX_RANKED_CHARS);
}

/**
 * Turns text into ranking terms, the same way for every ranker and store of memory-graph:
 * `rankedPart` of it, NFKC-normalised and lower-cased; split into the word-like segments of
 * Unicode word boundaries as `Intl.Segmenter` finds them (Thai, written without spaces, by
 * dictionary), see `wordsOf`; English and Thai stop words and lone Latin letters dropped; English
 * words stemmed (`stem`); numbers kept (thousands separators removed). Words of other languages,
 * e.g. romanised Hindi, pass through unchanged except for stemming of pure a–z words. Pure; order
 * of appearance kept, duplicates kept.
 */
export function tokenize(text: string): string[] {
  const ranked = rankedPart(text);
  // One turn tokenizes its prompt as a query (embedder and ranker) and, beside a date, as stored
  // text (full-text index and embedder, for the message and its event): remember the last few.
  // Past MAX_RANKED_CHARS the stored text and the query share their ranked part, hence one entry.
  const known = recent.get(ranked);
  if (known) return known.slice();
  const tokens: string[] = [];
  for (const word of wordsOf(ranked.normalize("NFKC").toLowerCase())) {
    const token = termOf(word);
    if (token !== "") tokens.push(token);
  }
  // A short text is cheap to redo, and remembering one (a word, a name) would push a prompt out.
  if (ranked.length < MEMO_MIN_CHARS) return tokens;
  if (recent.size >= MEMO_SIZE) recent.delete(recent.keys().next().value as string);
  recent.set(ranked, tokens.slice());
  return tokens;
}

const MEMO_SIZE = 8;
const MEMO_MIN_CHARS = 256;
const recent = new Map<string, string[]>();

/** Terms of recently seen words ("" for a dropped word): words repeat, stemming is not free. */
const termsOfWords = new Map<string, string>();
const TERM_CACHE_SIZE = 20_000;

/** The term of one word-like segment, "" when it is dropped (stop word, lone letter). */
function termOf(segment: string): string {
  let term = termsOfWords.get(segment);
  if (term === undefined) {
    term = computeTerm(segment);
    if (termsOfWords.size >= TERM_CACHE_SIZE) termsOfWords.clear();
    termsOfWords.set(segment, term);
  }
  return term;
}

function computeTerm(segment: string): string {
  if (NUMBER.test(segment)) return segment.replace(/,/g, "");
  const word = segment.replace(APOSTROPHES, "");
  if (word === "" || SINGLE_LATIN_LETTER.test(word)) return "";
  if (ENGLISH_STOP_WORDS.has(word) || THAI_STOP_WORDS.has(word)) return "";
  return stem(word);
}

/** How often each term occurs in `tokens`. Pure. */
export function termFrequencies(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}
