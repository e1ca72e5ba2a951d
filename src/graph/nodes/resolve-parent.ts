import type { BaseStore } from "@langchain/langgraph";
import type { TranscriptRecord } from "../../memory/records.js";
import { MemoryGraphError } from "../../errors.js";
import { getTranscriptMessage } from "../../memory/transcript.js";
import { promptText, type TurnInput } from "../state/turn-input.js";

/**
 * The parent a turn continues from (null without `parentMessageId`), checked: it must be a message
 * of this session, and a regeneration (a user parent) may carry no text or the parent's own.
 * `runTurn` calls it before the graph runs (the graph checkpoints its input before the first node,
 * so only a check made first keeps a rejected turn from storing) and hands the parent to
 * ingest_prompt; ingest_prompt calls it for runs the facade did not prepare (Studio, your own graph).
 */
export async function resolveParent(store: BaseStore, input: TurnInput): Promise<TranscriptRecord | null> {
  if (!input.parentMessageId) return null;
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
  return parent;
}
