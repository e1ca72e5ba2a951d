import type { MemoryScope } from "./scope.js";

/**
 * The only module that builds store namespaces. Every namespace begins with the tenant, then
 * `users` and the user id, so forgetting a user is one prefix and no tenant can reach another's.
 */
type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

export const namespaces = {
  /** Everything of one user: the prefix that "forget this user" deletes. */
  user: (s: UserScope): string[] => [s.tenantId, "users", s.userId],
  /** Every session transcript of one user (the prefix for cross-session recall). */
  sessions: (s: UserScope): string[] => [s.tenantId, "users", s.userId, "sessions"],
  /** Everything of one session: its transcript. */
  session: (s: MemoryScope): string[] => [s.tenantId, "users", s.userId, "sessions", s.sessionId],
  /** The transcript of one session: every message, every regeneration branch. */
  transcript: (s: MemoryScope): string[] => [s.tenantId, "users", s.userId, "sessions", s.sessionId, "messages"],
  events: (s: UserScope): string[] => [s.tenantId, "users", s.userId, "events"],
  facts: (s: UserScope): string[] => [s.tenantId, "users", s.userId, "facts"],
  summaries: (s: UserScope): string[] => [s.tenantId, "users", s.userId, "summaries"],
};

/** Reads the session id back out of a transcript namespace. */
export function sessionIdOfTranscript(namespace: readonly string[]): string | undefined {
  return namespace[3] === "sessions" ? namespace[4] : undefined;
}
