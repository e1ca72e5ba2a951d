import { AIMessage, HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { copyMessage, textOf } from "../../messages/message-meta.js";
import type { MemoryScope } from "../../memory/scope.js";
import { loadTranscript } from "../../memory/transcript.js";

/**
 * The key under a message's `additional_kwargs` that says where memory stored the agent's copy of
 * it: the scope of the session whose transcript holds it (under the message's own id).
 */
export const STORED_KEY = "memory_graph_stored";

/** Where memory stored `message`, when the middleware marked it so. */
function storedScopeOf(message: BaseMessage): MemoryScope | null {
  const raw: unknown = message.additional_kwargs?.[STORED_KEY];
  if (typeof raw !== "object" || raw === null) return null;
  const { tenantId, userId, sessionId } = raw as Record<string, unknown>;
  return typeof tenantId === "string" && typeof userId === "string" && typeof sessionId === "string" ? { tenantId, userId, sessionId } : null;
}

/**
 * The state update that gives `message` (of the agent's state `messages`) the id memory keeps it
 * under, so that what the agent has and what memory recalls are told apart by id, marked with the
 * session memory stored it in (`stored`; null for a message memory does not keep): the message
 * under its own id goes and a copy under `id` comes (at the end, where the turn's messages are),
 * unless the agent already has a message under `id` (a retry on the same thread); a message
 * already under `id` is replaced in place by its marked copy.
 */
export function storedAs(messages: readonly BaseMessage[], message: BaseMessage, id: string, stored: MemoryScope | null): BaseMessage[] {
  if (!message.id) return [];
  const copy = stored ? markedStored(message, stored) : copyMessage(message);
  copy.id = id;
  if (message.id === id) return stored && !storedScopeOf(message) ? [copy] : [];
  return [new RemoveMessage({ id: message.id }), ...(messages.some((m) => m.id === id) ? [] : [copy])];
}

/** A copy of `message` marked as stored by memory in the session of `scope`. */
export function markedStored<T extends BaseMessage>(message: T, scope: MemoryScope): T {
  const copy = copyMessage(message);
  copy.additional_kwargs = { ...copy.additional_kwargs, [STORED_KEY]: { tenantId: scope.tenantId, userId: scope.userId, sessionId: scope.sessionId } };
  return copy;
}

/**
 * What the agent's own thread must change so that its model reads what memory holds now of the
 * messages memory stored (those `storedAs` marked): a message memory no longer has (its session or
 * user forgotten, the message deleted) goes; one whose stored text changed (a fact's value cut out
 * as `[removed]`, the message corrected) is replaced in place by a copy with memory's text. One
 * read of each session's transcript the thread's marked messages came from; nothing when none is
 * marked. Earlier checkpoints of the agent's thread keep what they held: the model is never sent it
 * again, as the thread goes on from the updated state.
 */
export async function followMemory(store: BaseStore, messages: readonly BaseMessage[]): Promise<BaseMessage[]> {
  const bySession = new Map<string, { scope: MemoryScope; messages: BaseMessage[] }>();
  for (const message of messages) {
    const scope = storedScopeOf(message);
    if (!scope || !message.id) continue;
    const key = JSON.stringify([scope.tenantId, scope.userId, scope.sessionId]);
    const group = bySession.get(key) ?? { scope, messages: [] };
    group.messages.push(message);
    bySession.set(key, group);
  }
  const update: BaseMessage[] = [];
  for (const { scope, messages: stored } of bySession.values()) {
    const texts = new Map((await loadTranscript(store, scope)).map((record) => [record.id, record.text]));
    for (const message of stored) {
      const text = texts.get(message.id ?? "");
      if (text === undefined) update.push(new RemoveMessage({ id: message.id ?? "" }));
      else if (text !== textOf(message) && (HumanMessage.isInstance(message) || AIMessage.isInstance(message))) {
        const copy = copyMessage(message);
        copy.content = text;
        update.push(copy);
      }
    }
  }
  return update;
}
