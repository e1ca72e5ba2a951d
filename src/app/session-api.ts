import { forgetCheckedSession, forgetUser, type ForgetCounts, type SessionForgetCounts } from "../memory/forget.js";
import type { TranscriptRecord } from "../memory/records.js";
import { threadIdOf, validateScope, type MemoryScope } from "../memory/scope.js";
import { currentLeaf } from "../memory/session-continuity.js";
import type { MemoryState } from "../graph/state/state.js";
import type { Persistence } from "./backends.js";
import { sessionThread, userMemory, type UserMemory } from "./memory-reads.js";
import { isSessionStoreDown } from "../resilience/guarded-storage.js";

/** The memory graph's reads and forgetting of sessions and users. */
export interface SessionApi {
  /**
   * Forgets a user (every layer, every session) holding the user's lock alone: after every turn of
   * the user that holds it, on any instance, has ended with its upkeep (its writes are deleted with
   * the rest); turns that ask meanwhile wait, and start on a forgotten user.
   */
  forgetUser(user: Pick<MemoryScope, "tenantId" | "userId">): Promise<ForgetCounts>;
  /** Forgets one session and what was learned in it, holding the session's turn lock (so after its upkeep). */
  forgetSession(scope: MemoryScope): Promise<SessionForgetCounts>;
  /** The checkpointed state of a session, or null when it has none; GRAPH_CLOSED once closed. */
  sessionState(scope: MemoryScope): Promise<MemoryState | null>;
  /** The session's current thread (its messages from the root to the newest), or null when it has none. */
  sessionMessages(scope: MemoryScope): Promise<TranscriptRecord[] | null>;
  /** A user's long-term memory: events, facts (with validity) and summaries, newest first. */
  userMemory(user: Pick<MemoryScope, "tenantId" | "userId">): Promise<UserMemory>;
}

/** What the session methods of the API object work with. */
export interface SessionApiParts {
  persistence: Persistence;
  stateOf: (threadId: string) => Promise<MemoryState | null>;
  scoped: <T>(work: () => T) => T;
  refuseWhenClosed: () => void;
  /** How many messages past its checkpoint a session's thread is looked for (as a turn's catch-up does). */
  aheadMax: number;
}

/** The API object's reads and forgetting of sessions and users (each refused once the graph is closed). */
export function sessionApi(parts: SessionApiParts): SessionApi {
  const { persistence, stateOf, scoped, refuseWhenClosed } = parts;
  return {
    sessionState: (scope) =>
      scoped(() => {
        refuseWhenClosed();
        return stateOf(threadIdOf(validateScope(scope)));
      }),
    sessionMessages: (scope) =>
      scoped(async () => {
        refuseWhenClosed();
        const valid = validateScope(scope);
        // Turns answered ahead of the checkpoint are on the thread too (their mark names its end).
        const state = await stateOf(threadIdOf(valid)).catch((error: unknown) => {
          if (isSessionStoreDown(error)) return null;
          throw error;
        });
        const leaf = await currentLeaf(persistence.store, valid, state?.session ?? null, parts.aheadMax);
        return leaf ? sessionThread(persistence.store, valid, leaf) : null;
      }),
    userMemory: (user) =>
      scoped(() => {
        refuseWhenClosed();
        return userMemory(persistence.store, user);
      }),
    forgetUser: (user) =>
      scoped(() => {
        refuseWhenClosed();
        // It holds the user's lock alone, and the user's edit lock and sessions' turn locks (see `forgetUser`).
        return forgetUser(persistence, user);
      }),
    forgetSession: (scope) =>
      scoped(() => {
        refuseWhenClosed();
        const checked = validateScope(scope);
        return persistence.turnLock.run(threadIdOf(checked), () => forgetCheckedSession(persistence, checked));
      }),
  };
}
