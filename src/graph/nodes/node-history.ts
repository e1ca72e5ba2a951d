import type { BaseMessage } from "@langchain/core/messages";
import { MemoryGraphError } from "../../errors.js";
import { isPinned } from "../../messages/message-meta.js";
import type { MemoryState } from "../state/state.js";
import type { MemoryMode } from "./deps.js";
import { turnOf } from "./turn.js";

/** This turn's user message, as it stands in the window. */
export function humanForNode(state: MemoryState): BaseMessage {
  const turn = turnOf(state);
  const found = state.messages.find((m) => m.id === turn.messageId);
  if (!found) {
    throw new MemoryGraphError("TURN_MESSAGE_MISSING", `turn message ${turn.messageId} is not in the window`, { kind: "system" });
  }
  return found;
}

/**
 * The history an LLM node sees before this turn's message: the conversation window
 * (`conversation` mode) or only the node's own memory (`node` mode). Pinned system messages of
 * the window are kept in both modes. Without `withHistory` (a turn that asked for no history), only those.
 */
export function historyFor(state: MemoryState, node: string, mode: MemoryMode, withHistory = true): BaseMessage[] {
  const turnId = turnOf(state).messageId;
  const pinned = state.messages.filter(isPinned);
  if (!withHistory) return pinned;
  const own = mode === "node" ? (state.nodeMessages[node] ?? []) : state.messages.filter((m) => !isPinned(m));
  const cut = own.findIndex((m) => m.id === turnId);
  return [...pinned, ...(cut === -1 ? own : own.slice(0, cut))];
}
