import { metaOf, textOf } from "../../messages/message-meta.js";
import type { MemoryState, MemoryUpdate } from "../state/state.js";

/**
 * build_candidate: the reply offered to the caller, from this turn's assistant message. A turn
 * that ended in a model error has no reply, so no candidate.
 */
export function buildCandidate(state: MemoryState): MemoryUpdate {
  const replyId = state.turn?.replyId;
  const reply = replyId ? state.messages.find((m) => m.id === replyId) : undefined;
  if (!reply || !state.turn) return { candidate: null, llmText: "" };
  const text = textOf(reply);
  return {
    candidate: {
      id: replyId ?? "",
      kind: "text",
      status: "proposed",
      text,
      model: state.turn.model ?? "unknown",
      createdAt: metaOf(reply).createdAt,
    },
    llmText: text,
  };
}
