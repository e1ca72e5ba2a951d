import { dates } from "./language-tools.js";
import { dateWords } from "./ranking/document-text.js";

/** Words that make a time expression relative to when it was said. */
const RELATIVE = /\b(yesterday|today|tonight|tomorrow|ago|last|next|this|coming|past|previous)\b/i;

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** The resolved date of `expression` in words, as precise as the expression is. */
function resolved(expression: string, date: Date): string {
  const iso = date.toISOString();
  if (/\bweekend\b/i.test(expression)) return `weekend of ${dateWords(iso)}`;
  if (/\bweeks?\b/i.test(expression) && !/\bago\b/i.test(expression)) return `week of ${dateWords(iso)}`;
  if (/\bmonths?\b/i.test(expression)) return `${MONTHS[date.getUTCMonth()] ?? ""} ${date.getUTCFullYear()}`;
  if (/\byears?\b/i.test(expression)) return String(date.getUTCFullYear());
  return dateWords(iso);
}

/** Characters a time expression reaches on either side of its relative word ("two weeks ago"). */
const REACH = 48;

/**
 * The stretches of `text` around its relative words, `REACH` characters on either side widened to
 * whole words, overlapping ones merged: where every relative time expression lies.
 */
function stretchesOf(text: string): [from: number, to: number][] {
  const stretches: [number, number][] = [];
  for (const m of text.matchAll(RELATIVE_WORDS)) {
    const before = Math.max(0, m.index - REACH);
    const from = before === 0 ? 0 : text.lastIndexOf(" ", before) + 1;
    const after = text.indexOf(" ", Math.min(text.length, m.index + m[0].length + REACH));
    const to = after < 0 ? text.length : after;
    const last = stretches[stretches.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else stretches.push([from, to]);
  }
  return stretches;
}

const RELATIVE_WORDS = new RegExp(RELATIVE.source, "gi");

/**
 * `text` with each relative time expression ("yesterday", "two weeks ago", "last Saturday", "next
 * month") followed by the date it meant when said at `saidAt` (ISO), in brackets: "yesterday
 * [7 May 2023]". Absolute dates and durations ("for 4 years") are left alone; so is a text with no
 * relative word or an invalid `saidAt`. The parser reads only the few words around each relative
 * word (an expression reaches at most `REACH` characters from it), so the cost follows the number
 * of relative words, not the length of the text. Pure.
 */
export function annotateRelativeDates(text: string, saidAt: string): string {
  const instant = new Date(saidAt);
  if (Number.isNaN(instant.getTime()) || !RELATIVE.test(text)) return text;
  // Keyed by when and what: the same words said at several times (a question asked again) are several messages.
  const key = `${saidAt}\n${text}`;
  const known = annotated.get(key);
  if (known !== undefined) return known;
  const out = annotate(text, instant);
  if (text.length > ANNOTATED_MAX_CHARS) return out;
  if (annotated.size >= ANNOTATED_TEXTS) annotated.delete(annotated.keys().next().value as string);
  annotated.set(key, out);
  return out;
}

/**
 * Messages annotated lately (when said, then the text): recall brings back the same messages turn
 * after turn, and the parser costs far more per call than its input's length suggests (about
 * 0.5 ms for a one-line message on the benchmark machine).
 */
const annotated = new Map<string, string>();
const ANNOTATED_TEXTS = 256;
/** Longer texts are not remembered (recall hands on at most 1,000 characters of a message). */
const ANNOTATED_MAX_CHARS = 2_000;

function annotate(text: string, instant: Date): string {
  let out = "";
  let at = 0;
  for (const [from, to] of stretchesOf(text)) {
    for (const result of dates().parse(text.slice(from, to), { instant, timezone: 0 }, { forwardDate: false })) {
      if (!RELATIVE.test(result.text) || /^\s*(for|since)\b/i.test(result.text)) continue;
      const end = from + result.index + result.text.length;
      out += `${text.slice(at, end)} [${resolved(result.text, result.start.date())}]`;
      at = end;
    }
  }
  return out + text.slice(at);
}
