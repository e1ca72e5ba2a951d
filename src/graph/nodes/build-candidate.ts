import { metaOf, textOf } from "../../messages/message-meta.js";
import type { StorageDependency } from "../../errors.js";
import type { NodeError, TrimReport } from "../reducers.js";
import type { MemoryContext } from "../../memory/recall.js";
import type { TranscriptRecord } from "../../memory/records.js";
import type { StoredTurnResult } from "../../memory/turn-records.js";
import type { ModelUsage } from "../../models/usage.js";
import type { Candidate, MemoryState, MemoryUpdate, TurnEvent, TurnStatus } from "../state/state.js";

/**
 * build_candidate: the reply offered to the caller, from this turn's assistant message. A turn
 * that ended in a model error has no reply, so no candidate. The turn's result (`turnResultOf`)
 * is read from the state it leaves.
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

/** The tokens a turn's model calls used before its result (a summary made after it is logged). */
export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  calls: ModelUsage[];
}

/** What one turn gives back to its caller. */
export interface TurnResult {
  status: TurnStatus;
  candidate: Candidate | null;
  /** Kept for callers that read the reply text directly. */
  llmText: string;
  /** What recall found, and the rendered block the model saw. */
  memoryContext: { recalled: MemoryContext | null; text: string; tokens: number };
  trim: TrimReport | null;
  messageIds: { user: string | null; assistant: string | null };
  event: TurnEvent | null;
  /** What the message is after (the classification's intent), or null when nothing ran. */
  intent: string | null;
  /** Whether the message refers to what came before or is about the user (decided locally; when false, similar messages are not searched). */
  needMemory: boolean;
  /** One sentence: what memory was used and why, or why none was. */
  memoryReason: string;
  /** The errors recorded during this turn (fallbacks included). */
  errors: NodeError[];
  usage: TurnUsage;
  /** True when this is the stored result of an earlier request with the same `messageId` (nothing ran). */
  replayed: boolean;
  /**
   * The storage this turn ran without: `["session_store"]` when the checkpointer did not answer and
   * the turn ran on a session rebuilt from long-term memory (its messages are stored all the same).
   * A result that did not wait for a model's classification reports what was known when the reply
   * was made (a checkpoint write skipped after it is logged, and the session's next turn catches up).
   */
  degraded: StorageDependency[];
}

const SKIPPED_REASON = "No memory was used: there was no prompt.";

/** A stored result (read through `turnResultSchema`), with the fields it was stored without: `intent`, `needMemory`, `memoryReason`, `degraded`. */
export function storedResult(result: StoredTurnResult): TurnResult {
  return {
    ...result,
    intent: result.intent ?? result.event?.intent ?? null,
    needMemory: result.needMemory ?? false,
    memoryReason: result.memoryReason ?? "",
    degraded: result.degraded ?? [],
  };
}

/** Each of `A` and `B` is assignable to the other (so neither has a field the other lacks, or types differently). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// The schema a turn record's result is read with (and an imported one checked by) is this type, field for field.
const resultSchemaIsTurnResult: Same<Required<StoredTurnResult>, TurnResult> = true;
void resultSchemaIsTurnResult;

/** Reads a turn's result out of the state the graph ended in. */
export function turnResultOf(state: MemoryState): TurnResult {
  const turn = state.status === "SKIP" ? null : state.turn;
  return {
    status: state.status,
    candidate: state.candidate,
    llmText: state.llmText,
    memoryContext: {
      recalled: turn ? state.recalled : null,
      text: turn ? (state.memoryText?.text ?? "") : "",
      tokens: turn ? (state.memoryText?.tokens ?? 0) : 0,
    },
    trim: turn ? state.trim : null,
    messageIds: { user: turn?.messageId ?? null, assistant: turn?.replyId ?? null },
    event: turn ? state.event : null,
    intent: (turn && state.event?.intent) || null,
    needMemory: turn ? (state.memoryUse?.needMemory ?? false) : false,
    memoryReason: turn ? (state.memoryUse?.reason ?? "") : SKIPPED_REASON,
    errors: turn ? state.errors.filter((error) => error.turnId === turn.id) : [],
    usage: usageOf(turn ? state.usage : []),
    replayed: false,
    degraded: [],
  };
}

/** The result of a turn with no prompt text: nothing ran and nothing was stored. */
export function skippedTurn(): TurnResult {
  return {
    status: "SKIP",
    candidate: null,
    llmText: "",
    memoryContext: { recalled: null, text: "", tokens: 0 },
    trim: null,
    messageIds: { user: null, assistant: null },
    event: null,
    intent: null,
    needMemory: false,
    memoryReason: SKIPPED_REASON,
    errors: [],
    usage: usageOf([]),
    replayed: false,
    degraded: [],
  };
}

/**
 * The result of a turn whose reply is stored but whose result was not recorded (its process died
 * after answering): the reply, replayed. What else that result held (its memory context, event,
 * usage) was not kept.
 */
export function replayedReply(reply: TranscriptRecord): TurnResult {
  const candidate: Candidate = { id: reply.id, kind: "text", status: "proposed", text: reply.text, model: reply.model ?? "unknown", createdAt: reply.createdAt };
  return { ...skippedTurn(), status: "OK", candidate, llmText: reply.text, messageIds: { user: reply.parentId, assistant: reply.id }, memoryReason: "", replayed: true };
}

/** Totals of a turn's model calls. */
export function usageOf(calls: readonly ModelUsage[]): TurnUsage {
  const inputTokens = calls.reduce((sum, call) => sum + call.inputTokens, 0);
  const outputTokens = calls.reduce((sum, call) => sum + call.outputTokens, 0);
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, calls: [...calls] };
}
