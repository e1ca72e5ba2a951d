import type { BaseStore } from "@langchain/langgraph";
import { MemoryGraphError } from "../errors.js";
import { getTranscriptMessage } from "../memory/transcript.js";
import { promptText, type TurnInput } from "../state/turn-input.js";

/**
 * The checks ingest_prompt makes on a regeneration's parent, made before the graph runs: the
 * graph checkpoints its input before its first node, so a turn rejected inside the graph would
 * leave a checkpoint behind. Rejecting here keeps "a rejected request stores nothing" true.
 */
export async function precheckParent(store: BaseStore, input: TurnInput): Promise<void> {
  if (!input.parentMessageId) return;
  const parent = await getTranscriptMessage(store, input, input.parentMessageId);
  if (!parent) {
    throw new MemoryGraphError("UNKNOWN_PARENT", `parentMessageId: no message ${input.parentMessageId} in this session`, {
      kind: "user",
      field: "parentMessageId",
    });
  }
  const text = promptText(input);
  if (parent.role === "user" && text && text !== parent.text) {
    throw new MemoryGraphError("REGENERATE_TEXT_MISMATCH", "message: a regeneration re-answers the parent message; send no text or the same text", {
      kind: "user",
      field: "message",
    });
  }
}
