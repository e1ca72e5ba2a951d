/** What a ranker may know of a document beside its terms. */
export interface DocTraits {
  /** E.g. the role of who said it; a search may weigh documents by it (`HybridOptions.labelWeights`). */
  label?: string;
  /** Whether the document asks a question: the one after it in its conversation answers it. */
  asks?: boolean;
  /** Who said it, by name; a query naming them favours what they said (`HybridOptions.speakerWeight`). */
  speaker?: string;
}

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
 * names one, followed by its fact-augmented `keys` when it has them, then the calendar date of its
 * `createdAt` in words when it has one. Every
 * store and the in-process ranker index records this way, so a message is found by who said it
 * and when. Undefined when the value has no string `text`. Pure.
 */
export function recordIndexText(value: Readonly<Record<string, unknown>>): string | undefined {
  if (typeof value.text !== "string") return undefined;
  const speaker = typeof value.speaker === "string" && value.speaker.trim() !== "" ? `${value.speaker.trim()}: ` : "";
  const date = typeof value.createdAt === "string" ? dateWords(value.createdAt) : "";
  const keys = typeof value.keys === "string" && value.keys !== "" ? `\n${value.keys}` : "";
  return date ? `${speaker}${value.text}${keys}\n${date}` : `${speaker}${value.text}${keys}`;
}

/**
 * What a ranker keeps of a record beside its text (see `DocTraits`): its string `role` as the
 * label, whether its string `text` ends with a question mark (trailing spaces, tabs and line breaks
 * aside), and its non-empty string `speaker`. Our SQLite store computes the same in SQL from a
 * stored row. Pure.
 */
export function recordTraits(value: unknown): DocTraits {
  const { role, text, speaker } = (value ?? {}) as { role?: unknown; text?: unknown; speaker?: unknown };
  const traits: DocTraits = {};
  if (typeof role === "string") traits.label = role;
  if (typeof speaker === "string" && speaker !== "") traits.speaker = speaker;
  if (typeof text === "string" && lastVisible(text) === "?") traits.asks = true;
  return traits;
}

/** The last character of `text` that is not a space, tab or line break ("" when none is). */
function lastVisible(text: string): string {
  let end = text.length - 1;
  while (end >= 0 && " \t\n\r".includes(text[end] as string)) end -= 1;
  return end < 0 ? "" : (text[end] as string);
}
