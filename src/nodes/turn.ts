import { MemoryGraphError } from "../errors.js";
import type { MemoryScope } from "../memory/scope.js";
import type { MemoryState, TurnInfo } from "../state/state.js";

/** The current turn, which ingest_prompt always sets before the other nodes run. */
export function turnOf(state: MemoryState): TurnInfo {
  if (!state.turn) throw new MemoryGraphError("TURN_MISSING", "no turn in state: ingest_prompt must run first", { kind: "system" });
  return state.turn;
}

/** The tenant, user and session of the state's input. */
export function scopeOfState(state: MemoryState): MemoryScope {
  const input = state.input;
  if (!input) throw new MemoryGraphError("INPUT_MISSING", "no input in state", { kind: "system" });
  return { tenantId: input.tenantId, userId: input.userId, sessionId: input.sessionId };
}
