import type { BaseStore } from "@langchain/langgraph-checkpoint";
import type { ShownItems } from "./context.js";
import { getRecord } from "./item-edits.js";
import { namespaces } from "./namespaces.js";
import type { MemoryScope } from "./scope.js";

/**
 * "Why did the model see this?": each answered turn keeps what its memory context showed the
 * model, by layer (the ids of stored messages, facts, events and summaries), under its user
 * message's id. Unindexed, one small record a turn, deleted with the session.
 */
export interface TurnContextRecord {
  /** The turn's user message. */
  messageId: string;
  /** The reply the context was given for. */
  replyId: string | null;
  sessionId: string;
  createdAt: string;
  /** The memory block's estimated tokens. */
  tokens: number;
  shown: ShownItems;
}

/** What the turn of user message `messageId` showed; TURN_CONTEXT_NOT_FOUND when no answered turn of it is recorded. */
export function getTurnContext(store: BaseStore, scope: MemoryScope, messageId: string): Promise<TurnContextRecord> {
  return getRecord<TurnContextRecord>(store, namespaces.turnContexts(scope), messageId, "TURN_CONTEXT_NOT_FOUND");
}
