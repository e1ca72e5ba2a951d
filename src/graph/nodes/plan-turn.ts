import type { BaseStore } from "@langchain/langgraph";
import { MemoryGraphError } from "../../errors.js";
import type { TranscriptRecord } from "../../memory/records.js";
import { getTranscriptMessage } from "../../memory/transcript.js";
import { getTurnRecord, sameRequest } from "../../memory/turn-records.js";
import type { MemoryState, PlannedTurn } from "../state/state.js";
import type { ValidTurn } from "../state/turn-input.js";
import { turnResultOf, withMemoryFields, type TurnResult } from "../state/turn-result.js";

/**
 * What to do with a validated turn, decided under the session's turn lock, before the graph runs:
 * - `run` the graph on `plan` (for a retry whose message is stored but was never answered, a
 *   re-answer of that message, so that it is not stored twice); `key` is the idempotency key to
 *   record the result under, when the client sent one;
 * - `replay` the result an earlier request with the same `messageId` got (nothing runs or is written).
 */
export type TurnPlan = { kind: "run"; plan: PlannedTurn; key: string | null } | { kind: "replay"; result: TurnResult };

/**
 * The one place a turn's ids are checked against the store. A client `messageId` is an
 * idempotency key, scoped to tenant + user + session:
 * - first use: the turn runs and its new user message takes that id;
 * - the same id with the same text and parent after the turn finished: the stored result, replayed;
 * - the same id whose message is stored but whose turn did not finish (the model failed, or the
 *   process died): the stored message is answered again;
 * - the same id with another text or parent, or the id of an assistant message:
 *   `MESSAGE_ID_CONFLICT`, and nothing is written.
 * Regeneration has one way in, `parentMessageId`, checked here too (`UNKNOWN_PARENT`, …).
 * `lastState` reads the session's checkpointed state, only for a retry.
 */
export async function planTurn(store: BaseStore, turn: ValidTurn, lastState: () => Promise<MemoryState | null>): Promise<TurnPlan> {
  const { input, text } = turn;
  const key = input.messageId ?? null;
  const fresh = async (): Promise<TurnPlan> => ({ kind: "run", plan: { input, text, parent: await resolveParent(store, turn) }, key });
  if (key === null) return fresh();
  const record = await getTurnRecord<TurnResult>(store, input, key);
  if (record) {
    if (!sameRequest(record, text, input.parentMessageId)) throw conflict(key, "was first sent with another message or parent");
    // A result stored before `degraded` existed had none.
    return { kind: "replay", result: { ...withMemoryFields(record.result), degraded: record.result.degraded ?? [], replayed: true } };
  }
  const stored = await getTranscriptMessage(store, input, key);
  if (!stored) return fresh();
  checkRetryOf(stored, turn);
  // The turn may have finished with its record not yet written (the process died in between).
  const state = await lastState();
  if (state?.turn?.messageId === key && state.status === "OK" && state.candidate) {
    return { kind: "replay", result: { ...turnResultOf(state), replayed: true } };
  }
  const { messageId: _key, ...rest } = input;
  return { kind: "run", plan: { input: { ...rest, parentMessageId: key }, text, parent: stored }, key };
}

/**
 * The plan of a run of the graph alone (Studio, a graph of your own), which keeps no results to
 * replay: the parent checked as above, and a new message may not take the id of a stored one (an
 * upsert would overwrite it, and a reply's id given to its own follow-up would make the message
 * its own parent). A regeneration stores no new message, so its id is not looked at.
 */
export async function planRunAlone(store: BaseStore, turn: ValidTurn): Promise<PlannedTurn> {
  const parent = await resolveParent(store, turn);
  const key = turn.input.messageId;
  if (key !== undefined && parent?.role !== "user" && (await getTranscriptMessage(store, turn.input, key))) {
    throw conflict(key, "is already a message of this session");
  }
  return { input: turn.input, text: turn.text, parent };
}

/**
 * The parent a turn continues from (null without `parentMessageId`), checked: it must be a message
 * of this session, and a regeneration (a user parent) may carry no text or the parent's own.
 */
async function resolveParent(store: BaseStore, { input, text }: ValidTurn): Promise<TranscriptRecord | null> {
  if (!input.parentMessageId) return null;
  const parent = await getTranscriptMessage(store, input, input.parentMessageId);
  if (!parent) {
    throw new MemoryGraphError("UNKNOWN_PARENT", `parentMessageId: no message ${input.parentMessageId} in this session`, {
      kind: "user",
      field: "parentMessageId",
    });
  }
  if (parent.role === "user" && text && text !== parent.text) {
    throw new MemoryGraphError("REGENERATE_TEXT_MISMATCH", "message: a regeneration re-answers the parent message; send no text or the same text", {
      kind: "user",
      field: "message",
    });
  }
  return parent;
}

/** A stored message may only be retried by the request that stored it: a user message, same text, same parent. */
function checkRetryOf(stored: TranscriptRecord, { input, text }: ValidTurn): void {
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
