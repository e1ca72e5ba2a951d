/**
 * When a question about the asker's own past names a time relative to the moment of asking ("last
 * Saturday", "in the past two months", "10 days ago", "from earliest to latest"), those words
 * place the answer in time; they do not say what it is about. The message that answers was
 * written then, in words relative to its own moment ("I just got a smoker today"), so the
 * question's "last", "month" or "ago" match only other messages that happen to use them ("I
 * bought these boots last month", "I need to order more supplies"). Recall scores such terms at
 * `HybridOptions.timeTermWeight` instead of as the question's topic. Only English phrasing is read,
 * and only in a first-person question (about what the user lived: "When did I …", "my trip"); a
 * question about a conversation between others ("What did Jon do last week?") quotes what was
 * said there, where "last week" was written as it is asked.
 */
import { tokenize } from "./ranking/tokenize.js";

const FIRST_PERSON = /\b(?:i|me|my|mine|myself|i'm|i've|i'd|i'll)(?!\w)/i;

export const COUNT = String.raw`(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|several|(?:a\s+)?couple\s+of)`;
const UNIT = String.raw`(?:days?|nights?|weeks?|weekends?|months?|years?|mornings?|evenings?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|spring|summer|autumn|fall|winter)`;
const ENDS = String.raw`(?:earliest|latest|first|last|oldest|newest|most\s+recent)`;

// Each alternative ends with `(?!\w)` (what `\b` says after a letter or digit).
const RELATIVE_TIME = new RegExp(
  [
    // "last Saturday", "this weekend", "in the past two months", "the last few years"
    String.raw`\b(?:last|past|previous|this|next|coming)\s+(?:${COUNT}\s+)?${UNIT}(?!\w)`,
    // "10 days ago", "a couple of weeks ago"
    String.raw`\b${COUNT}\s+${UNIT}\s+ago(?!\w)`,
    // "from earliest to latest", "starting from the earliest", "from the first to the last"
    String.raw`\b(?:from|starting\s+(?:from|with))\s+(?:the\s+)?${ENDS}(?:\s+to\s+(?:the\s+)?${ENDS})?(?!\w)`,
    // "most recently"; "What is the order of …" asks when, not about an order placed
    String.raw`\bmost\s+recently(?!\w)`,
    String.raw`\bthe\s+order\s+of(?!\w)`,
  ].join("|"),
  "gi",
);

/**
 * The terms (`tokenize`'s) of the phrases of `query` that name a time relative to the moment of
 * asking, when `query` is in the first person; [] otherwise. Calendar dates and month names are not
 * among them (a message is also indexed by its date in words, which they match). Pure.
 */
export function relativeTimeTerms(query: string): string[] {
  return [...new Set(relativeTimePhrases(query).flatMap((phrase) => tokenize(phrase)))];
}

/** The phrases of `query` that name a time relative to the moment of asking (as written), when `query` is in the first person; [] otherwise. Pure. */
export function relativeTimePhrases(query: string): string[] {
  const text = query.replace(/[\u2019\u02bc]/g, "'");
  if (!FIRST_PERSON.test(text)) return [];
  return text.match(RELATIVE_TIME) ?? [];
}
