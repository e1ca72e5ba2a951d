import type { TurnLock } from "../../memory/ports/persistence.js";
import { KeyedLock } from "../shared/keyed-lock.js";

/** In-process serialisation only (memory backend, or a single instance). */
export function inProcessTurnLock(): TurnLock {
  const local = new KeyedLock();
  return { run: (threadId, work) => local.run(threadId, work) };
}
