import * as chrono from "chrono-node";
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

/**
 * `text` with each relative time expression ("yesterday", "two weeks ago", "last Saturday", "next
 * month") followed by the date it meant when said at `saidAt` (ISO), in brackets: "yesterday
 * [7 May 2023]". Absolute dates and durations ("for 4 years") are left alone; so is a text with no
 * relative word (the parser is not even run) or an invalid `saidAt`. Pure.
 */
export function annotateRelativeDates(text: string, saidAt: string): string {
  const instant = new Date(saidAt);
  if (Number.isNaN(instant.getTime()) || !RELATIVE.test(text)) return text;
  const found = chrono.parse(text, { instant, timezone: 0 }, { forwardDate: false });
  let out = "";
  let at = 0;
  for (const result of found) {
    if (!RELATIVE.test(result.text) || /^\s*(for|since)\b/i.test(result.text)) continue;
    const end = result.index + result.text.length;
    out += `${text.slice(at, end)} [${resolved(result.text, result.start.date())}]`;
    at = end;
  }
  return out + text.slice(at);
}
