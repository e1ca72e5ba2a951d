import type { BaseStore } from "@langchain/langgraph";
import { MemoryGraphError } from "../errors.js";
import type { TranscriptRecord } from "../memory/records.js";
import { getTranscriptMessage } from "../memory/transcript.js";
import { getTurnRecord, sameRequest } from "../memory/turn-records.js";
import { resolveParent } from "../graph/nodes/resolve-parent.js";
import type { MemoryState } from "../graph/state/state.js";
import { promptText, type TurnInput } from "../graph/state/turn-input.js";
import { turnResultOf, withMemoryFields, type TurnResult } from "../graph/state/turn-result.js";

/**
 * What to do with a validated turn, decided under the session's turn lock:
 * - `run` the graph on `input` (for a retry whose message is stored but was never answered, a
 *   re-answer of that message, so it is not stored twice); `parent` is the checked parent (null
 *   without one), and a `messageId` left in `input` names no stored message; `key` is the
 *   idempotency key to record the result under, when the client sent one;
 * - `replay` the result an earlier request with the same `messageId` got (nothing runs or is written).
 */
export type TurnPlan = { kind: "run"; input: TurnInput; parent: TranscriptRecord | null; key: string | null } | { kind: "replay"; result: TurnResult };

/**
 * A client `messageId` is an idempotency key, scoped to tenant + user + session:
 * - first use: the turn runs and its new user message takes that id;
 * - the same id with the same text and parent after the turn finished: the stored result, replayed;
 * - the same id whose message is stored but whose turn did not finish (the model failed, or the
 *   process died): the stored message is answered again;
 * - the same id with another text or parent, or the id of an assistant message:
 *   `MESSAGE_ID_CONFLICT`, and nothing is written.
 * Regeneration has one way in, `parentMessageId`. Checks the parent too (`UNKNOWN_PARENT`, …).
 * `lastState` reads the session's checkpointed state, only for a retry.
 */
export async function prepareTurn(store: BaseStore, input: TurnInput, lastState: () => Promise<MemoryState | null>): Promise<TurnPlan> {
  const key = input.messageId ?? null;
  if (key === null) return { kind: "run", input, parent: await resolveParent(store, input), key };
  const text = promptText(input);
  const record = await getTurnRecord<TurnResult>(store, input, key);
  if (record) {
    if (!sameRequest(record, text, input.parentMessageId)) throw conflict(key, "was first sent with another message or parent");
    // A result stored before `degraded` existed had none.
    return { kind: "replay", result: { ...withMemoryFields(record.result), degraded: record.result.degraded ?? [], replayed: true } };
  }
  const stored = await getTranscriptMessage(store, input, key);
  if (!stored) return { kind: "run", input, parent: await resolveParent(store, input), key };
  checkRetryOf(stored, input, text);
  // The turn may have finished with its record not yet written (the process died in between).
  const state = await lastState();
  if (state?.turn?.messageId === key && state.status === "OK" && state.candidate) {
    return { kind: "replay", result: { ...turnResultOf(state), replayed: true } };
  }
  const { messageId: _key, ...rest } = input;
  return { kind: "run", input: { ...rest, parentMessageId: key }, parent: stored, key };
}

/** A stored message may only be retried by the request that stored it: a user message, same text, same parent. */
function checkRetryOf(stored: TranscriptRecord, input: TurnInput, text: string): void {
  if (stored.role !== "user") throw conflict(stored.id, "is the id of an assistant message");
  if (stored.text !== text) throw conflict(stored.id, "was first sent with another message");
  if (input.parentMessageId !== undefined && input.parentMessageId !== stored.parentId) {
    throw conflict(stored.id, "was first sent with another parent");
  }
}

function conflict(id: string, why: string): MemoryGraphError {
  return new MemoryGraphError("MESSAGE_ID_CONFLICT", `messageId: ${id} ${why}; a message id names one message of a session (to answer a message again, send it as the parent)`, {
    kind: "user",
    field: "messageId",
  });
}
