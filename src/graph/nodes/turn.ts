import type { BaseMessage } from "@langchain/core/messages";
import { messagesStateReducer } from "@langchain/langgraph";
import { MemoryGraphError } from "../../errors.js";
import { log } from "../../logger.js";
import type { MemoryScope } from "../../memory/scope.js";
import { isPinned } from "../../messages/message-meta.js";
import { trimWindowWithReport, type TrimReport, type WindowLimits } from "../reducers/window.js";
import type { MemoryState, TurnInfo } from "../state/state.js";
import { turnInputSchema } from "../state/turn-input.js";
import type { MemoryMode } from "./deps.js";

/**
 * What the nodes read of this turn from the state (the turn, its scope, its user message, the
 * history a model node sees) and the window update they write.
 */

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
