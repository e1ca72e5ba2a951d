import { truncate } from "./clip.js";
import { tokenize } from "./ranking/tokenize.js";

/** Characters before the best-matching span that an excerpt keeps, so its sentence reads. */
const LEAD_CHARS = 40;

/**
 * The part of a recalled `text` worth showing for `query`, at most `max` characters: the whole
 * text when it fits; else it starts a little before the `focus`-character span holding the most
 * distinct query terms (the earliest such span; the text's start when no term matches) at a word
 * boundary, and is cut to `max` with "…" marking what was left out on either side. Pure.
 */
export function excerpt(text: string, query: string, max: number, focus = Math.min(max, 300)): string {
  if (text.length <= max) return text;
  const wanted = new Set(tokenize(query));
  const hits: { at: number; term: string }[] = [];
  if (wanted.size > 0) {
    for (const match of text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’]*/gu)) {
      const term = tokenize(match[0])[0];
      if (term !== undefined && wanted.has(term)) hits.push({ at: match.index, term });
    }
  }
  let bestStart = 0;
  let bestCount = 0;
  const inWindow = new Map<string, number>();
  let first = 0;
  for (const hit of hits) {
    inWindow.set(hit.term, (inWindow.get(hit.term) ?? 0) + 1);
    while ((hits[first]?.at ?? 0) <= hit.at - focus) {
      const term = hits[first]?.term ?? "";
      const n = (inWindow.get(term) ?? 1) - 1;
      if (n === 0) inWindow.delete(term);
      else inWindow.set(term, n);
      first += 1;
    }
    if (inWindow.size > bestCount) {
      bestCount = inWindow.size;
      bestStart = hits[first]?.at ?? 0;
    }
  }
  let start = Math.max(0, bestStart - LEAD_CHARS);
  if (start > 0) {
    const space = text.indexOf(" ", start);
    if (space >= 0 && space < bestStart) start = space + 1;
  }
  if (start === 0) return truncate(text, max);
  return `…${truncate(text.slice(start), max - 1)}`;
}
