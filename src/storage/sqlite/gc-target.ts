import type { GcTarget, TurnLock } from "../../memory/ports/persistence.js";
import { gcTargetOf } from "../shared/gc-target.js";
import type { SqliteCheckpointer } from "./checkpointer.js";
import type { SqliteStore } from "./store.js";

/** The GC target of the sqlite engine: a checkpointer and a store (normally sharing one database file). */
export function sqliteGcTarget(checkpointer: SqliteCheckpointer, store: SqliteStore, lock?: TurnLock): GcTarget {
  store.setup();
  return gcTargetOf(checkpointer, store, lock);
}
