import { truncate } from "./clip.js";
import { MAX_RANKED_CHARS, rankedPart, tokenize } from "./ranking/tokenize.js";

/** Characters before the best-matching span that an excerpt keeps, so its sentence reads. */
const LEAD_CHARS = 40;

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’]*/gu;

/** The words of a text that are ranking terms, in order: where each starts, and its term. */
interface ScannedText {
  at: number[];
  terms: string[];
}

/**
 * Texts scanned lately, by their ranked part (least recently used first): the messages a session
 * recalls come back turn after turn, and a long one is scanned once, not once per turn.
 */
const scannedTexts = new Map<string, ScannedText>();
const SCANNED_TEXTS = 32;

/** The term of each word seen lately ("" for a word that is none): words repeat across texts. */
const termsOfWords = new Map<string, string>();
const WORD_CACHE_SIZE = 20_000;

function termOfWord(word: string): string {
  let term = termsOfWords.get(word);
  if (term === undefined) {
    term = tokenize(word)[0] ?? "";
    if (termsOfWords.size >= WORD_CACHE_SIZE) termsOfWords.clear();
    termsOfWords.set(word, term);
  }
  return term;
}

function scan(part: string): ScannedText {
  const known = scannedTexts.get(part);
  if (known) {
    scannedTexts.delete(part);
    scannedTexts.set(part, known);
    return known;
  }
  const scanned: ScannedText = { at: [], terms: [] };
  for (const match of part.matchAll(WORD)) {
    const term = termOfWord(match[0]);
    if (term === "") continue;
    scanned.at.push(match.index);
    scanned.terms.push(term);
  }
  if (scannedTexts.size >= SCANNED_TEXTS) scannedTexts.delete(scannedTexts.keys().next().value as string);
  scannedTexts.set(part, scanned);
  return scanned;
}

/** Cuts texts to the part that matches one query: `(text, max, focus?) => excerpt`. */
export type Excerpter = (text: string, max: number, focus?: number) => string;

/**
 * `excerpt` for every text recalled for one `query`: the query is tokenised once. Each text's
 * words are turned into terms once while it is among the last `SCANNED_TEXTS` texts cut.
 */
export function excerpter(query: string): Excerpter {
  const idOfTerm = new Map<string, number>();
  for (const term of tokenize(query)) if (!idOfTerm.has(term)) idOfTerm.set(term, idOfTerm.size);
  return (text, max, focus = Math.min(max, 300)) => {
    if (text.length <= max) return text;
    const bestStart = idOfTerm.size === 0 ? 0 : bestSpanStart(scan(rankedPart(text)), idOfTerm, focus);
    let start = Math.max(0, bestStart - LEAD_CHARS);
    if (start > 0) {
      const space = text.indexOf(" ", start);
      if (space >= 0 && space < bestStart) start = space + 1;
    }
    if (start === 0) return truncate(text, max);
    return `…${truncate(text.slice(start), max - 1)}`;
  };
}

/**
 * How many leading characters of a text an excerpt of at most `max` characters reads: matches are
 * looked for in the ranked part (`MAX_RANKED_CHARS`), and at most `max` characters are shown from
 * before the best of them. Any prefix of the text at least this long gives the same excerpt.
 */
export function excerptReadChars(max: number): number {
  return MAX_RANKED_CHARS + max + 1;
}

/**
 * The part of a recalled `text` worth showing for `query`, at most `max` characters: the whole
 * text when it fits; else it starts a little before the `focus`-character span holding the most
 * distinct query terms (the earliest such span; the text's start when no term matches) at a word
 * boundary, and is cut to `max` with "…" marking what was left out on either side. Matches are
 * looked for in the part of the text ranking reads (`rankedPart`, its first 8,000 characters):
 * the work is bounded, and a word past that point did not make the text match. Pure.
 */
export function excerpt(text: string, query: string, max: number, focus = Math.min(max, 300)): string {
  return text.length <= max ? text : excerpter(query)(text, max, focus);
}

/** Where the earliest `focus`-character span holding the most distinct query terms starts (0 when none). */
function bestSpanStart(scanned: ScannedText, idOfTerm: ReadonlyMap<string, number>, focus: number): number {
  const at: number[] = [];
  const ids: number[] = [];
  scanned.terms.forEach((term, i) => {
    const id = idOfTerm.get(term);
    if (id === undefined) return;
    at.push(scanned.at[i] as number);
    ids.push(id);
  });
  const inWindow = new Int32Array(idOfTerm.size);
  let distinct = 0;
  let best = 0;
  let bestCount = 0;
  let first = 0;
  for (let i = 0; i < at.length; i += 1) {
    const entering = ids[i] as number;
    const had = inWindow[entering] ?? 0;
    inWindow[entering] = had + 1;
    if (had === 0) distinct += 1;
    while ((at[first] as number) <= (at[i] as number) - focus) {
      const leaving = ids[first] as number;
      const left = (inWindow[leaving] ?? 1) - 1;
      inWindow[leaving] = left;
      if (left === 0) distinct -= 1;
      first += 1;
    }
    if (distinct > bestCount) {
      bestCount = distinct;
      best = at[first] as number;
    }
  }
  return best;
}
