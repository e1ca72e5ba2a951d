import type { BaseMessage } from "@langchain/core/messages";
import { messagesStateReducer, type BaseStore } from "@langchain/langgraph";
import { MemoryGraphError } from "../../errors.js";
import { log } from "../../logger.js";
import type { TranscriptRecord } from "../../memory/records.js";
import type { MemoryScope } from "../../memory/scope.js";
import { answeredReplyTo } from "../../memory/session-continuity.js";
import { getTranscriptMessage } from "../../memory/transcript.js";
import { getTurnRecord, sameRequest } from "../../memory/turn-records.js";
import { isPinned } from "../../messages/message-meta.js";
import { trimWindowWithReport, type TrimReport, type WindowLimits } from "../reducers.js";
import type { MemoryState, PlannedTurn, TurnInfo } from "../state/state.js";
import { turnInputSchema, type ValidTurn } from "../state/turn-input.js";
import { replayedReply, storedResult, turnResultOf, type TurnResult } from "./build-candidate.js";
import type { MemoryMode } from "./deps.js";

/**
 * The turn, from its plan to what the nodes read of it: planned once, before the graph runs
 * (`planTurn`: its ids checked against the store, a retry replayed or re-answered), then read by
 * the nodes from the state (the turn, its scope, its user message, the history a model node
 * sees), which write it into the window (`windowUpdate`).
 */

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
 * - the same id with the same text and parent after the turn finished: the stored result, replayed
 *   (a stored result that does not read as a turn result counts as not recorded: see below);
 * - the same id whose turn was answered but whose process died before recording its result (the
 *   session's continuity mark names its reply): that reply, replayed;
 * - the same id whose message is stored but whose turn did not finish (the model failed, or the
 *   process died before answering): the stored message is answered again;
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
  const record = await getTurnRecord(store, input, key);
  if (record && !sameRequest(record, text, input.parentMessageId)) throw conflict(key, "was first sent with another message or parent");
  // A result that does not read as one (logged by `getTurnRecord`) is answered as one never recorded.
  if (record?.result) return { kind: "replay", result: { ...storedResult(record.result), replayed: true } };
  const stored = await getTranscriptMessage(store, input, key);
  if (!stored) return fresh();
  checkRetryOf(stored, turn);
  // The turn may have finished with its record not yet written (the process died in between).
  const state = await lastState();
  if (state?.turn?.messageId === key && state.status === "OK" && state.candidate) {
    return { kind: "replay", result: { ...turnResultOf(state), replayed: true } };
  }
  // Or it was answered before its checkpoint, and the process died before either was written.
  const answered = await answeredReplyTo(store, input, key);
  if (answered) return { kind: "replay", result: replayedReply(answered) };
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

/** The current turn, which ingest_prompt always sets before the other nodes run. */
export function turnOf(state: MemoryState): TurnInfo {
  if (!state.turn) throw new MemoryGraphError("TURN_MISSING", "no turn in state: ingest_prompt must run first", { kind: "system" });
  return state.turn;
}

/** The run's input fields as given (absent ones left out), for ingest_prompt to validate. */
export function runInputOf(state: MemoryState): Record<string, unknown> {
  const given = Object.keys(turnInputSchema.shape).map((key) => [key, state[key as keyof MemoryState]] as const);
  return Object.fromEntries(given.filter(([, value]) => value !== undefined));
}

/** The tenant, user and session of the state's input. */
export function scopeOfState(state: MemoryState): MemoryScope {
  const input = state.input;
  if (!input) throw new MemoryGraphError("INPUT_MISSING", "no input in state", { kind: "system" });
  return { tenantId: input.tenantId, userId: input.userId, sessionId: input.sessionId };
}

/**
 * A checkpoint thread belongs to the tenant, user and session of its first turn. A run on that
 * thread as anyone else (a library or Studio caller choosing their own `thread_id`) is refused with
 * `THREAD_SCOPE_MISMATCH` before anything is read; returns the scope to bind (the bound one).
 */
export function bindThreadScope(bound: MemoryScope | null, scope: MemoryScope): MemoryScope {
  if (bound && (bound.tenantId !== scope.tenantId || bound.userId !== scope.userId || bound.sessionId !== scope.sessionId)) {
    throw new MemoryGraphError("THREAD_SCOPE_MISMATCH", "THREAD_SCOPE_MISMATCH: this thread belongs to another tenant, user or session; use the thread of your own session", {
      kind: "user",
      field: "threadId",
    });
  }
  return bound ?? scope;
}

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

/**
 * The state update that adds `update` to the window, with the trim report the reducer's result
 * will have (the reducer is pure and deterministic, so computing it here gives the same window).
 */
export function windowUpdate(
  current: BaseMessage[],
  update: BaseMessage[],
  limits: WindowLimits,
): { messages: BaseMessage[]; trim: TrimReport } {
  const { report } = trimWindowWithReport(messagesStateReducer(current, update), limits);
  if (report.beforeCount !== report.afterCount) log.debug("window_trimmed", { ...report });
  return { messages: update, trim: report };
}
