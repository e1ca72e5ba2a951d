import { dates } from "../../memory/language-tools.js";

/**
 * When what a message says stops being true, if the message bounds it in time: "this week",
 * "this weekend", "this month", "today", "tonight", "for the next 3 days", "for two weeks",
 * "until Friday", "till 5 December". English only; days end at 23:59:59.999 UTC. Null when the
 * message sets no bound (a fact is then kept until it changes).
 */

const NUMBERS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };
const SPAN = /\bfor (?:the next |the coming |another )?(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten) (day|night|week|month)s?\b/i;
const UNTIL = /\b(?:until|till|til|through)\s+(.{1,40})/i;

const endOfDay = (date: Date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate(), 23, 59, 59, 999));
const addDays = (date: Date, days: number) => new Date(date.getTime() + days * 86_400_000);

/** The end of the bound `text` sets from `now` (ISO 8601), or null. */
export function expiryOf(text: string, now: Date): string | null {
  const span = SPAN.exec(text);
  if (span) {
    const count = NUMBERS[span[1]?.toLowerCase() ?? ""] ?? Number(span[1]);
    const unit = span[2]?.toLowerCase();
    const days = unit === "week" ? 7 * count : unit === "month" ? 30 * count : count;
    return endOfDay(addDays(now, days)).toISOString();
  }
  const until = UNTIL.exec(text);
  if (until) {
    const date = dates().parseDate(until[1] ?? "", now, { forwardDate: true });
    if (date && date.getTime() > now.getTime()) return endOfDay(date).toISOString();
  }
  if (/\bthis week\b/i.test(text)) return endOfDay(addDays(now, (7 - now.getUTCDay()) % 7)).toISOString();
  if (/\bthis weekend\b/i.test(text)) return endOfDay(addDays(now, (7 - now.getUTCDay()) % 7)).toISOString();
  if (/\bthis month\b/i.test(text)) return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - 1).toISOString();
  if (/\b(today|tonight)\b/i.test(text)) return endOfDay(now).toISOString();
  return null;
}

/** `updates` from a message, each with the bound the message sets (see `expiryOf`), if any. Pure. */
export function boundedInTime<T extends { key: string; value: string }>(updates: readonly T[], text: string, now: Date): (T & { expiresAt?: string })[] {
  if (updates.length === 0) return [];
  const expiresAt = expiryOf(text, now);
  return expiresAt ? updates.map((update) => ({ ...update, expiresAt })) : [...updates];
}
