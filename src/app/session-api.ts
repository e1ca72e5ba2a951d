import { forgetSession, forgetUser } from "../memory/forget.js";
import { threadIdOf, validateScope } from "../memory/scope.js";
import { currentLeaf } from "../memory/session-continuity.js";
import type { MemoryState } from "../graph/state/state.js";
import type { Persistence } from "./backends.js";
import { sessionThread, userMemory } from "./memory-reads.js";
import type { MemoryGraph } from "./create-memory-graph.js";
import { isSessionStoreDown } from "./resilient-persistence.js";

/** What the session methods of the API object work with. */
export interface SessionApiParts {
  persistence: Persistence;
  stateOf: (threadId: string) => Promise<MemoryState | null>;
  settled: () => Promise<void>;
  scoped: <T>(work: () => T) => T;
  refuseWhenClosed: () => void;
}

/** The API object's reads and forgetting of sessions and users (each refused once the graph is closed). */
export function sessionApi(parts: SessionApiParts): Pick<MemoryGraph, "sessionState" | "sessionMessages" | "userMemory" | "forgetUser" | "forgetSession"> {
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
        // Turns answered without the session store are on the thread too (their mark names its end).
        const state = await stateOf(threadIdOf(valid)).catch((error: unknown) => {
          if (isSessionStoreDown(error)) return null;
          throw error;
        });
        const leaf = await currentLeaf(persistence.store, valid, state?.session ?? null);
        return leaf ? sessionThread(persistence.store, valid, leaf) : null;
      }),
    userMemory: (user) =>
      scoped(() => {
        refuseWhenClosed();
        return userMemory(persistence.store, user);
      }),
    forgetUser: (user) =>
      scoped(async () => {
        refuseWhenClosed();
        await parts.settled();
        return forgetUser(persistence, user);
      }),
    forgetSession: (scope) =>
      scoped(() => {
        refuseWhenClosed();
        return persistence.turnLock.run(threadIdOf(validateScope(scope)), () => forgetSession(persistence, scope));
      }),
  };
}
