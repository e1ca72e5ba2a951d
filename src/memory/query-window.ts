/**
 * The time a first-person question points at. "What did I buy 10 days ago?" asked on 30 May is
 * answered by a message written about 20 May; "in the past three months" by one written since the
 * end of February. `timeWindowOf` turns the phrases `relativeTimePhrases` finds into such a window
 * of time, against the moment the question is asked, and `favourTimeWindow` lifts the hits written
 * inside it by a bounded amount (`limits.recall.timeWindowWeight`). A phrase we cannot place
 * ("last summer", "from earliest to latest", "next week", "this weekend") gives no window. Times are read in UTC.
 */
import { relativeTimePhrases } from "./query-time.js";

/** A span of time, both ends included. */
export interface TimeWindow {
  from: Date;
  to: Date;
}

const DAY_MS = 86_400_000;
const UNIT_DAYS: Readonly<Record<string, number>> = { day: 1, night: 1, morning: 1, evening: 1, week: 7, weekend: 7, month: 30.44, year: 365.25 };
const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const COUNTS: Readonly<Record<string, number>> = {
  a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, few: 3, several: 4, couple: 2,
};

/** A count as written ("10", "two", "a couple of"); NaN when it is not one. */
function countOf(word: string): number {
  const last = word.trim().split(/\s+/).filter((w) => w !== "of").pop() ?? "";
  return /^\d+$/.test(last) ? Number(last) : (COUNTS[last] ?? Number.NaN);
}

/** The singular unit of a phrase's last word ("months" → "month"), or the weekday's name. */
function unitOf(word: string): string {
  return word.endsWith("s") && !WEEKDAYS.includes(word) ? word.slice(0, -1) : word;
}

function daysBefore(now: Date, days: number): Date {
  return new Date(now.getTime() - days * DAY_MS);
}

/** The window of "N units ago": that moment, give or take a quarter of the span (at least a day). */
function agoWindow(now: Date, count: number, days: number): TimeWindow {
  const back = count * days;
  const slack = Math.max(1, back / 4);
  return { from: daysBefore(now, back + slack), to: daysBefore(now, Math.max(0, back - slack)) };
}

/** The last `weekday` (0 = Sunday) strictly before the day of `now`, a day either side; for the weekend, Saturday and Sunday. */
function lastWeekday(now: Date, weekday: number, span: number): TimeWindow {
  const back = (now.getUTCDay() - weekday + 7) % 7 || 7;
  const day = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - back * DAY_MS;
  return { from: new Date(day - DAY_MS), to: new Date(Math.min(now.getTime(), day + (span + 1) * DAY_MS)) };
}

/** The window of "last/past/this [count] unit"; undefined for a unit we cannot place (a season). */
function recentWindow(now: Date, which: string, count: number | undefined, unit: string): TimeWindow | undefined {
  const weekday = WEEKDAYS.indexOf(unit);
  // "this weekend", "this Friday": mostly the coming one, a plan ("I'm visiting the store this weekend").
  if (which === "this" && (weekday >= 0 || unit === "weekend")) return undefined;
  if (weekday >= 0) return lastWeekday(now, weekday, 1);
  if (unit === "weekend" && count === undefined) return lastWeekday(now, 6, 2);
  const days = UNIT_DAYS[unit];
  if (days === undefined) return undefined;
  if (which === "this" && (unit === "month" || unit === "year")) {
    const start = unit === "year" ? Date.UTC(now.getUTCFullYear(), 0, 1) : Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
    return { from: new Date(start), to: now };
  }
  // "the past three months" reaches back three months; "last month" (the one before this), two.
  const reach = count !== undefined ? count * days + 1 : which === "last" || which === "previous" ? 2 * days : days + 1;
  return { from: daysBefore(now, reach), to: now };
}

/** The window of one phrase `relativeTimePhrases` found; undefined when it names no placeable past time. */
export function phraseWindow(phrase: string, now: Date): TimeWindow | undefined {
  const words = phrase.toLowerCase().trim().split(/\s+/);
  const last = words[words.length - 1] ?? "";
  if (last === "ago") {
    const days = UNIT_DAYS[unitOf(words[words.length - 2] ?? "")];
    const count = countOf(words.slice(0, -2).join(" "));
    return days !== undefined && count > 0 ? agoWindow(now, count, days) : undefined;
  }
  const which = words[0] ?? "";
  if (!["last", "past", "previous", "this"].includes(which)) return undefined;
  const middle = words.slice(1, -1).join(" ");
  const count = middle === "" ? undefined : countOf(middle);
  if (count !== undefined && !(count > 0)) return undefined;
  return recentWindow(now, which, count, unitOf(last));
}

/**
 * The window of time a first-person `query` points at, relative to `now` (the moment it is asked):
 * that of its first phrase of relative time we can place; undefined when there is none. Pure.
 */
export function timeWindowOf(query: string, now: Date): TimeWindow | undefined {
  for (const phrase of relativeTimePhrases(query)) {
    const window = phraseWindow(phrase, now);
    if (window) return window;
  }
  return undefined;
}

/**
 * `hits` (best first, scores max-normalised) with `weight` added to the score of each one written
 * inside `window` (by `createdAt`), reordered by the new scores (ties keep their order) and
 * normalised again (best = 1). The identity when `weight` is 0 or when no hit, or every hit, lies inside. Pure.
 */
export function favourTimeWindow<T extends { score?: number }>(hits: readonly T[], window: TimeWindow, weight: number, createdAt: (hit: T) => string): T[] {
  const from = window.from.getTime();
  const to = window.to.getTime();
  const inside = (hit: T): boolean => {
    const at = Date.parse(createdAt(hit));
    return at >= from && at <= to;
  };
  if (weight <= 0 || !hits.some(inside) || hits.every(inside)) return [...hits];
  const scored = hits.map((hit, i) => ({ hit, i, score: (hit.score ?? 0) + (inside(hit) ? weight : 0) }));
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  const best = scored[0]?.score ?? 0;
  return scored.map(({ hit, score }) => ({ ...hit, score: best > 0 ? score / best : score }));
}
