import { MemoryGraphError } from "../../errors.js";
import type { MemoryScope } from "../../memory/scope.js";
import type { MemoryState, TurnInfo } from "../state/state.js";
import { turnInputSchema } from "../state/turn-input.js";

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
