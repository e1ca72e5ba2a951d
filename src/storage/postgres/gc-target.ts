import type { GcTarget, TurnLock } from "../../memory/ports/persistence.js";
import { gcTargetOf } from "../shared/gc-target.js";
import type { PostgresCheckpointer } from "./checkpointer.js";
import type { PostgresStore } from "./store.js";

/** The GC target of the postgres engine. */
export function postgresGcTarget(checkpointer: PostgresCheckpointer, store: PostgresStore, lock?: TurnLock): GcTarget {
  return gcTargetOf(checkpointer, store, lock);
}
