import { encodeLabel, type MemoryScope, type UserScope } from "./scope.js";

/**
 * The only module that builds store namespaces. Every namespace begins with the tenant, then
 * `users` and the user id, so forgetting a user is one prefix and no tenant can reach another's.
 * Ids become labels by `encodeLabel` (scope.ts), the one encoding every storage key uses.
 */

export { decodeLabel, encodeLabel } from "./scope.js";

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
  /** What a fact's delete can be undone from, for a short while (fact-undo.ts): read by nothing the model reads. */
  factUndo: (s: UserScope): string[] => [...user(s), "fact-undo"],
  /** The user's entity graph: one item per node (entity or alias), keyed by its normalised name (see entities/). */
  entities: (s: UserScope): string[] => [...user(s), "entities"],
  /** The sources added to an entity node since its item was written, one item per such node, keyed as the node (see entities/graph-store.ts). */
  entityTails: (s: UserScope): string[] => [...user(s), "entity-tails"],
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
  /** The memory-context records of every session of one user (the prefix of `turnContexts`). */
  allTurnContexts: (s: UserScope): string[] => [...user(s), "contexts"],
};
