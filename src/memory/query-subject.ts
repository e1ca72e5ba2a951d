/**
 * Whose words a query asks about. A user who asks about themselves ("When did I move to
 * Seattle?", "Any tips for my trip?") is answered by what they said, not by the assistant's
 * replies around it, which share the topic's words and are several times longer; a user who asks
 * about what the assistant said ("the recipe you recommended", "in our previous chat") is not.
 * Only English first-person and second-person phrasing is read: any other query weighs every
 * message alike.
 */

/** The factor on the lexical score of the assistant's messages when a query asks about the user's own words. */
export const ASSISTANT_WEIGHT_FOR_FIRST_PERSON = 0.15;

const FIRST_PERSON = /\b(?:i|me|my|mine|myself|i'm|i've|i'd|i'll)\b/i;
const ABOUT_ASSISTANT =
  /\b(?:our|we)\b.{0,40}\b(?:conversation|chat|discussion|discussed|talked|talk)\b|\byou\b.{0,30}\b(?:said|say|told|mentioned|recommended|suggested|provided|made|created|gave|listed|wrote|explained|shared)\b/i;

// `(?!\w)` where a word ends after a letter: what `\b` says there, and V8 compiles it several times faster (first use 4–5 → ~1 ms).
const ASKS_FOR_LIST =
  /\b(?:what|which)\s+(?:\w+\s+){0,2}?(?:activities|hobbies|events|books|things|ways|places|items|kinds|types|sports|pets|instruments|games|movies|countries|cities|states|foods|paintings|symbols|gifts)(?!\w)|\bhow many(?!\w)|\b(?:what|which)\s+\w+s\s+(?:has|have|does|do|did)(?!\w)/i;

/**
 * Whether `query` asks for several things, whose answers are spread over turns and sessions
 * ("What activities does Melanie partake in?", "Which books has she read?", "How many times did I
 * …"), so its ranking leans less on one match's neighbours (`HybridOptions.listQuery`). English
 * phrasing only. Pure.
 */
export function asksForList(query: string): boolean {
  return ASKS_FOR_LIST.test(query);
}

const ASKS_FOR_AGGREGATE = /\b(?:total|combined|altogether)(?!\w)|\bthe\s+order\s+of(?!\w)/i;

/**
 * Whether `query` asks for something made of several answers without naming a list: a sum ("What
 * is the total cost of …", "How much did I raise in total?", "… combined?") or an order ("What is
 * the order of the museums I visited …?"). Its parts lie in several turns, often in several
 * sessions, as a list's do (`HybridOptions.aggregateQuery`). English phrasing only. Pure.
 */
export function asksForAggregate(query: string): boolean {
  return ASKS_FOR_AGGREGATE.test(query);
}

// "Where has Melanie camped?", "Where did Caroline move from?": "where" opening a question, before its verb.
const ASKS_WHERE = /(?:^|[.?!]\s+)where\s+(?:has|have|had|does|do|did|is|was|were|are|will|would|can|could)(?!\w)/i;

/**
 * Whether `query` asks where (an answer that is a place: "the beach", "the mountains", "a homeless
 * shelter"), so its ranking also weighs the kinds of place (`categoryTermsOf`). English phrasing
 * only. Pure.
 */
export function asksWhere(query: string): boolean {
  return ASKS_WHERE.test(query);
}

/**
 * Per message role, the factor on its lexical score for `query` (see `HybridOptions.labelWeights`):
 * `{ assistant: ASSISTANT_WEIGHT_FOR_FIRST_PERSON }` when the query speaks in the first person and
 * does not refer to what the assistant said, else undefined (no weighting). Pure.
 */
export function roleWeightsFor(query: string): Record<string, number> | undefined {
  const text = query.replace(/[\u2019\u02bc]/g, "'");
  if (!FIRST_PERSON.test(text) || ABOUT_ASSISTANT.test(text)) return undefined;
  return { assistant: ASSISTANT_WEIGHT_FOR_FIRST_PERSON };
}
