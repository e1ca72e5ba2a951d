const MONTHS = [
  "January", "February", "March", "April", "May", "June",
  "July", "August", "September", "October", "November", "December",
];

/**
 * The calendar date of an ISO timestamp in words, "8 May 2023" (UTC), so that a query naming a
 * day, month or year can match what was said then; "" when `iso` is not a valid date.
 */
export function dateWords(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()] ?? ""} ${date.getUTCFullYear()}`;
}

/**
 * The text a record is ranked by: its `text`, prefixed with `speaker` ("Ann: …") when the record
 * names one, followed by the calendar date of its `createdAt` in words when it has one. Every
 * store and the in-process ranker index records this way, so a message is found by who said it
 * and when. Undefined when the value has no string `text`. Pure.
 */
export function recordIndexText(value: Readonly<Record<string, unknown>>): string | undefined {
  if (typeof value.text !== "string") return undefined;
  const speaker = typeof value.speaker === "string" && value.speaker.trim() !== "" ? `${value.speaker.trim()}: ` : "";
  const date = typeof value.createdAt === "string" ? dateWords(value.createdAt) : "";
  return date ? `${speaker}${value.text}\n${date}` : `${speaker}${value.text}`;
}
