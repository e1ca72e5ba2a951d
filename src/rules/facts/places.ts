import { nlp } from "../../memory/language-tools.js";
import { CITIES, COUNTRIES, THAI_PLACES, placeOf } from "./lexicon.js";
import type { Found } from "./found.js";

/** A place named at the start of `rest`, its kind, and how many characters it took. */
export interface PlaceHit {
  name: string;
  kind: "city" | "country";
  length: number;
}

const WORD = /^[A-Za-z][\w'.-]*/;

/**
 * The place at the very start of `rest`: the longest known city or country (1–4 words, any
 * case, or a Thai name), else a run of capitalised words typed by compromise (#Country is a
 * country, anything else a city). `allowUnknown` admits a capitalised run compromise does not
 * know as a place (after "I live in", where the cue says it is one).
 */
export function placeAtStart(rest: string, allowUnknown: boolean): PlaceHit | undefined {
  const trimmed = rest.replace(/^\s+/, "");
  const offset = rest.length - trimmed.length;
  const thai = THAI_PLACES.find((place) => trimmed.startsWith(place.name));
  if (thai) return { name: thai.name, kind: thai.kind, length: offset + thai.name.length };
  const words = firstWords(trimmed, 4);
  for (let n = Math.min(4, words.length); n >= 1; n -= 1) {
    const phrase = words.slice(0, n).join("");
    const known = placeOf(phrase.replace(/[,.!?;]+$/, ""));
    if (known && /^[\p{L}\s.'-]+$/u.test(phrase.trim())) return { ...known, length: offset + phrase.length };
  }
  const run = /^[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2}/.exec(trimmed)?.[0];
  if (!run || !WORD.test(run)) return undefined;
  const doc = nlp()(run);
  if (doc.has("#Country")) return { name: run, kind: "country", length: offset + run.length };
  if (doc.has("#Place") || allowUnknown) {
    if (doc.has("#Person") && !doc.has("#Place")) return undefined;
    return { name: run, kind: "city", length: offset + run.length };
  }
  return undefined;
}

const WORD_START = /[\s,.!?;]/g;

/**
 * The first `n` pieces of `text` cut before each whitespace or punctuation character (as
 * `text.split(/(?=[\s,.!?;])/)` gives them), reading no further than they reach: callers look
 * for a place after every cue in a message, and splitting all of the rest each time would make
 * that quadratic in the message's length.
 */
function firstWords(text: string, n: number): string[] {
  WORD_START.lastIndex = 1;
  let end = text.length;
  for (let cuts = 0; cuts < n; cuts += 1) {
    const next = WORD_START.exec(text);
    if (!next) break;
    if (cuts === n - 1) end = next.index;
    WORD_START.lastIndex = next.index + 1;
  }
  return text.slice(0, end).split(/(?=[\s,.!?;])/);
}

/** Facts for a place phrase such as "Manchester, UK" or "Osaka, Japan" (city then country). */
export function placeFacts(rest: string, rank: number, allowUnknown: boolean): Found[] {
  const first = placeAtStart(rest, allowUnknown);
  if (!first) return [];
  const found: Found[] = [{ key: first.kind === "city" ? "location.city" : "location.country", value: first.name, rank }];
  const after = /^\s*,\s*/.exec(rest.slice(first.length));
  if (first.kind === "city" && after) {
    const second = placeAtStart(rest.slice(first.length + after[0].length), false);
    if (second?.kind === "country") found.push({ key: "location.country", value: second.name, rank });
  }
  return found;
}

/** True when the word or phrase is a known place (any covered spelling). */
export function isKnownPlace(text: string): boolean {
  const key = text.trim().toLowerCase();
  return CITIES.has(key) || COUNTRIES.has(key) || THAI_PLACES.some((place) => place.name === text.trim());
}
