import type { MemoryScope } from "./scope.js";

/**
 * The only module that builds store namespaces. Every namespace begins with the tenant, then
 * `users` and the user id, so forgetting a user is one prefix and no tenant can reach another's.
 */
type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/**
 * Encodes an id as a namespace label. LangGraph's `BaseStore` refuses labels with `.` or `:` (and
 * a root named `langgraph`), yet user ids such as e-mail addresses have dots; `%`-escaping keeps
 * the mapping one-to-one.
 */
export function encodeLabel(id: string): string {
  const escaped = id.replace(/%/g, "%25").replace(/\./g, "%2E").replace(/:/g, "%3A");
  return escaped === "langgraph" ? "%6Canggraph" : escaped;
}

/** The id a label encodes. */
export function decodeLabel(label: string): string {
  return label.replace(/%(25|2E|3A|6C)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

const user = (s: UserScope): string[] => [encodeLabel(s.tenantId), "users", encodeLabel(s.userId)];

export const namespaces = {
  /** Everything of one user: the prefix that "forget this user" deletes. */
  user,
  /** Every session transcript of one user (the prefix for cross-session recall). */
  sessions: (s: UserScope): string[] => [...user(s), "sessions"],
  /** Everything of one session: its transcript. */
  session: (s: MemoryScope): string[] => [...user(s), "sessions", encodeLabel(s.sessionId)],
  /** The transcript of one session: every message, every regeneration branch. */
  transcript: (s: MemoryScope): string[] => [...user(s), "sessions", encodeLabel(s.sessionId), "messages"],
  events: (s: UserScope): string[] => [...user(s), "events"],
  facts: (s: UserScope): string[] => [...user(s), "facts"],
  summaries: (s: UserScope): string[] => [...user(s), "summaries"],
  /**
   * The finished turns of one session that carried a client message id (the idempotency key),
   * kept apart from `sessions` so that transcript recall never sees them.
   */
  turns: (s: MemoryScope): string[] => [...user(s), "turns", encodeLabel(s.sessionId)],
  /** The finished turns of every session of one user (the prefix of `turns`). */
  allTurns: (s: UserScope): string[] => [...user(s), "turns"],
  /** The titles a model gave the user's sessions (key: the session id), apart from `sessions` so that recall never sees them. */
  sessionTitles: (s: UserScope): string[] => [...user(s), "session-titles"],
  /**
   * What each turn of one session showed the model from memory (ids by layer), keyed by the turn's
   * user message; apart from `sessions` so that transcript recall never sees them.
   */
  turnContexts: (s: MemoryScope): string[] => [...user(s), "contexts", encodeLabel(s.sessionId)],
};
