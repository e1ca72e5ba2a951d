import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { namespaces } from "./namespaces.js";
import type { EntityRef } from "./records.js";
import type { MemoryScope } from "./scope.js";

/**
 * The bookkeeping of a session whose turns are taken by an agent of your own (the agent middleware,
 * app/agent/) rather than by the graph, which keeps the same fields in its checkpoint. An agent may
 * run without a checkpointer, or with one we cannot read, so the middleware keeps them in the store,
 * one record per session. Where it comes from and where it goes:
 * - derived from the session's messages (the last intent and the entities its classification
 *   found; the message ids of the thread and of the last summary);
 * - deleted with the session (it lives in the session's `turns` namespace) and with the user;
 *   redacted with every other record when a fact's value is deleted (redaction reads every record
 *   under the user);
 * - its key holds a `/`, which no message id can: it takes no idempotency record's place, and an
 *   export (which keeps turn records only) leaves it out.
 */

export interface AgentSession {
  /** The newest message of the session's thread the agent door wrote (a summary walks back from it). */
  lastMessageId: string | null;
  /** The last intent classification found, for follow-ups ("and the other one?"). */
  lastIntent: string | null;
  activeEntities: EntityRef[];
  /** Answered user/assistant pairs since the last summary the agent door made. */
  pairsSinceSummary: number;
  /** The newest message that summary covers. */
  summarizedThroughId: string | null;
}

export const EMPTY_AGENT_SESSION: AgentSession = { lastMessageId: null, lastIntent: null, activeEntities: [], pairsSinceSummary: 0, summarizedThroughId: null };

const KEY = "agent/session";

/** The session's record, or the empty one when the agent door has not answered in it yet. Only reads. */
export async function readAgentSession(store: BaseStore, scope: MemoryScope): Promise<AgentSession> {
  const item = await store.get(namespaces.turns(scope), KEY);
  return item ? { ...EMPTY_AGENT_SESSION, ...(item.value as Partial<AgentSession>) } : EMPTY_AGENT_SESSION;
}

/** Replaces the session's record (unindexed: it is read by key, never searched). */
export async function saveAgentSession(store: BaseStore, scope: MemoryScope, session: AgentSession): Promise<void> {
  await store.put(namespaces.turns(scope), KEY, { ...session }, false);
}
