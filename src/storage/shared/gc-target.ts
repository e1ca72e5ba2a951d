import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import type { GcTarget, TurnLock } from "../../memory/ports/persistence.js";
import type { PruningCheckpointer, StorePort } from "../../memory/ports/store.js";

/**
 * The GC target of an engine whose checkpointer lists and prunes its threads and whose store
 * implements the store port (tenant listing, orphan clean-up): what `collectGarbage` works on.
 */
export function gcTargetOf(checkpointer: BaseCheckpointSaver & PruningCheckpointer, store: StorePort, lock?: TurnLock): GcTarget {
  return {
    checkpointer,
    store,
    lock,
    listThreadIds: () => checkpointer.listThreadIds(),
    pruneThread: (threadId, keep, slack) => checkpointer.pruneThread(threadId, keep, slack),
    listTenants: () => store.listTenants(),
    removeOrphanedIndexRows: () => store.removeOrphanedIndexRows(),
    sweepExpiredItems: () => store.sweepExpiredItems(),
  };
}
