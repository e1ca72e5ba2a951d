import { stem } from "./stem.js";
import { ENGLISH_STOP_WORDS, THAI_STOP_WORDS } from "./stop-words.js";

/*
 * Word splitting for `tokenize` (`wordsOf`): the word-like segments `Intl.Segmenter` (Unicode word
 * boundaries, UAX #29, with ICU's dictionaries) finds, at a fraction of its cost.
 *
 * Whitespace always ends a word under UAX #29, so the text is cut into runs without whitespace
 * and each run is split alone. A run of ASCII and of letters, marks and digits of alphabetic
 * scripts (Latin, Greek, Cyrillic, Devanagari and other Indic scripts, Arabic, …) is split
 * here by the UAX #29 rules that can apply to it. Any other run — Thai, Lao, Khmer, Burmese, Han,
 * kana, which need a dictionary, or one holding other punctuation, symbols, emoji or format
 * characters — goes to `Intl.Segmenter`, a piece of at most `SEGMENTER_WINDOW` characters at a
 * time: the segmenter's cost grows faster than the length of what it is given.
 */

// Made on first use: the first Intl object of a process loads ICU's locale data (8-13 ms, on a fresh
// instance's way to its first answer when made at import), and plain runs never need it.
let segmenter: Intl.Segmenter | undefined;

/** Whitespace as UAX #29 and NFKC leave it: every one of these ends a word. */
const SPACE = "\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const RUN = new RegExp(`[^${SPACE}]+`, "g");
const SPACE_CHAR = new RegExp(`^[${SPACE}]$`);

/** Whether `char` is whitespace that always ends a word (so text may be cut before it). */
export function isWordSpace(char: string): boolean {
  return SPACE_CHAR.test(char);
}

/** Scripts whose letters are plain word letters (no dictionary, no special rule). */
const PLAIN_SCRIPTS = [
  "Latin", "Greek", "Cyrillic", "Armenian", "Georgian", "Arabic", "Devanagari", "Bengali", "Gurmukhi",
  "Gujarati", "Oriya", "Tamil", "Telugu", "Kannada", "Malayalam", "Sinhala", "Inherited",
].map((script) => `\\p{Script=${script}}`).join("");

/**
 * A run split here: printable ASCII, and letters, marks and decimal digits of the plain scripts.
 * The two alternatives never match the same character (the second only past ASCII), so a run
 * that fails at its end is refused in linear time instead of trying 2^n ways to read its letters.
 * Built when a run holds more than printable ASCII (`ASCII_RUN`): building it and its first use
 * take about 1.5 ms (the scripts' character sets), on a fresh instance's way to its first answer.
 */
let plainRun: RegExp | undefined;
const isPlainRun = (run: string) =>
  (plainRun ??= new RegExp(`^(?:[\\x21-\\x7e]|(?=[^\\x00-\\x7f])(?=[\\p{L}\\p{M}\\p{Nd}])[${PLAIN_SCRIPTS}])+$`, "u")).test(run);
const ASCII_RUN = /^[\x21-\x7e]+$/;
const ASCII_WORD = /^[A-Za-z0-9]+$/;
const MARK = /\p{M}/u;
const LETTER = /\p{L}/u;

/** Pieces handed to `Intl.Segmenter` stay under this length (its cost is superlinear in it). */
export const SEGMENTER_WINDOW = 1000;

/** The word-like segments of `text` (already normalised), in order. */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(RUN)) {
    const run = match[0];
    // Most runs are one word of ASCII letters and digits, which UAX #29 never splits.
    if (ASCII_WORD.test(run)) words.push(run);
    // A run of printable ASCII is a plain run that starts with no mark.
    else if (ASCII_RUN.test(run) || (isPlainRun(run) && !MARK.test(run[0] ?? ""))) splitPlainRun(run, words);
    else segmentRun(run, words);
  }
  return words;
}

// Word-break classes of the characters of a plain run (UAX #29 names).
const OTHER = 0;
const LETTER_CLASS = 1; // ALetter
const NUMERIC = 2;
const MID_LETTER = 3; // ":"
const MID_NUM = 4; // "," ";"
const MID_NUM_LET = 5; // "." "'" (MidNumLet, Single_Quote)
const EXTEND_NUM_LET = 6; // "_"
const EXTEND = 7; // combining marks: they join whatever precedes them

function classOf(char: string): number {
  const code = char.charCodeAt(0);
  if (code < 0x80) {
    if ((code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a)) return LETTER_CLASS;
    if (code >= 0x30 && code <= 0x39) return NUMERIC;
    if (char === ":") return MID_LETTER;
    if (char === "," || char === ";") return MID_NUM;
    if (char === "." || char === "'") return MID_NUM_LET;
    if (char === "_") return EXTEND_NUM_LET;
    return OTHER;
  }
  if (MARK.test(char)) return EXTEND;
  return LETTER.test(char) ? LETTER_CLASS : NUMERIC;
}

const joinsLetters = (mid: number) => mid === MID_LETTER || mid === MID_NUM_LET;
const joinsNumbers = (mid: number) => mid === MID_NUM || mid === MID_NUM_LET;
const isWordPart = (c: number) => c === LETTER_CLASS || c === NUMERIC || c === EXTEND_NUM_LET;

/**
 * UAX #29 over a plain run: letters, digits and "_" join (WB5, WB8–WB10, WB13a/b); ":" "." "'"
 * join letter to letter (WB6/7); "," ";" "." "'" join digit to digit (WB11/12); marks join what
 * precedes them (WB4). A segment is word-like when it holds a letter or digit, or (as ICU has it)
 * at least two "_"; not, as in ICU, when it ends in a "_" that carries a mark.
 */
function splitPlainRun(run: string, words: string[]): void {
  // Units: one base character with the marks after it, as [start, class].
  const starts: number[] = [];
  const classes: number[] = [];
  for (let i = 0; i < run.length; ) {
    const char = String.fromCodePoint(run.codePointAt(i) ?? 0);
    const cls = classOf(char);
    if (cls !== EXTEND || starts.length === 0) {
      starts.push(i);
      classes.push(cls);
    }
    i += char.length;
  }
  starts.push(run.length);
  const n = classes.length;
  let i = 0;
  while (i < n) {
    const first = classes[i] ?? OTHER;
    if (!isWordPart(first)) {
      i += 1;
      continue;
    }
    let j = i + 1;
    let last = first;
    while (j < n) {
      const next = classes[j] ?? OTHER;
      if (isWordPart(next)) {
        last = next;
        j += 1;
        continue;
      }
      const after = classes[j + 1];
      const bridged = (last === LETTER_CLASS && after === LETTER_CLASS && joinsLetters(next)) || (last === NUMERIC && after === NUMERIC && joinsNumbers(next));
      if (!bridged) break;
      last = after;
      j += 2;
    }
    // ICU quirk: a segment ending in "_" with a mark on it is not word-like.
    const markedEnd = last === EXTEND_NUM_LET && (starts[j] ?? 0) - (starts[j - 1] ?? 0) > 1;
    if ((first !== EXTEND_NUM_LET || j > i + 1) && !markedEnd) words.push(run.slice(starts[i], starts[j]));
    i = j;
  }
}

/** A run by `Intl.Segmenter`, in windows (see `nextWindow`). */
function segmentRun(run: string, words: string[]): void {
  let start = 0;
  while (start < run.length) {
    const { end, hard } = nextWindow(run, start);
    segmenter ??= new Intl.Segmenter("en", { granularity: "word" });
    const parts = [...segmenter.segment(run.slice(start, end))];
    // Cut inside a word: the last few segments are segmented again with what follows them.
    const kept = hard || parts.length <= REDONE_SEGMENTS ? parts.length : parts.length - REDONE_SEGMENTS;
    for (const part of parts.slice(0, kept)) if (part.isWordLike) words.push(part.segment);
    start += kept < parts.length ? (parts[kept]?.index ?? end - start) : end - start;
  }
}

/** Segments at the end of a window cut inside a run of letters that the next window redoes. */
const REDONE_SEGMENTS = 8;

/** Characters after which a word never continues (no UAX #29 rule joins across them). */
const HARD_BREAK = /(?![\u2044\u30a0])[\p{Ps}\p{Pe}\p{Pd}\p{Sm}\p{Sc}!?\u3001\u3002]/u;

/** Characters that join the one before them whatever it is (WB4). */
const JOINS_BACK = /[\p{M}\p{Cf}]/u;

/**
 * The next window of `run` from `start`: to the end of the run when it is short enough; else
 * after the last character in the window's second half that no word continues across (`hard`);
 * failing that, `SEGMENTER_WINDOW` characters (not inside a surrogate pair), whose last segments
 * the caller redoes. Dictionary segmentation looks a few words ahead, so only a run of letters
 * over `SEGMENTER_WINDOW / 2` characters long with no punctuation or space — no ordinary text —
 * may be split differently from the whole.
 */
function nextWindow(run: string, start: number): { end: number; hard: boolean } {
  const limit = start + SEGMENTER_WINDOW;
  if (limit >= run.length) return { end: run.length, hard: true };
  for (let i = limit - 1; i > start + SEGMENTER_WINDOW / 2; i -= 1) {
    if (HARD_BREAK.test(run[i] ?? "") && !JOINS_BACK.test(run[i + 1] ?? "")) return { end: i + 1, hard: true };
  }
  const code = run.charCodeAt(limit - 1);
  return { end: code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit, hard: false };
}

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
