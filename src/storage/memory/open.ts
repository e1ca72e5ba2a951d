import type { BaseCheckpointSaver, BaseStore, MemorySaver } from "@langchain/langgraph-checkpoint";
import type { GcTarget, Persistence, TurnLock, UserLock } from "../../memory/ports/persistence.js";
import { IN_PROCESS_TRAITS } from "../shared/traits.js";
import type { StoreTtlConfig } from "../shared/ttl.js";
import { inProcessTurnLock } from "./turn-lock.js";
import { inProcessUserLock } from "./user-lock.js";

/**
 * The memory engine, for tests and the dev server: LangGraph's own `MemorySaver` and
 * `InMemoryStore` with LangGraph's store TTL added (`TtlMemoryStore`; a plain store otherwise:
 * recall ranks its items itself) and an in-process turn lock. Nothing survives the process, so
 * there is nothing to collect (`gc` is null; expired items go before any store operation runs).
 */
export async function openMemory(options: { ttl?: StoreTtlConfig } = {}): Promise<Persistence> {
  const [{ MemorySaver }, { TtlMemoryStore }] = await Promise.all([import("@langchain/langgraph"), import("./store.js")]);
  const store = new TtlMemoryStore({ ttl: options.ttl });
  const checkpointer = new MemorySaver();
  return {
    ...inProcessPersistence({ checkpointer, store }),
    dropSessionHistory: async (threadId) => dropOlderCheckpoints(checkpointer, threadId),
    close: async () => store.stop(),
  };
}

/**
 * Deletes every checkpoint of `threadId` in `saver` but the newest of each namespace, with their
 * pending writes. `MemorySaver` keeps each checkpoint whole (its values inside it), so nothing else
 * holds what they held. Its maps are public; their layout is the one `MemorySaver.put` writes.
 */
function dropOlderCheckpoints(saver: MemorySaver, threadId: string): number {
  let dropped = 0;
  for (const [ns, checkpoints] of Object.entries(saver.storage[threadId] ?? {})) {
    // Checkpoint ids are uuid6: later ids sort after earlier ones.
    const older = Object.keys(checkpoints).sort().slice(0, -1);
    for (const id of older) {
      delete checkpoints[id];
      delete saver.writes[JSON.stringify([threadId, ns, id])];
      dropped += 1;
    }
  }
  return dropped;
}

/**
 * A checkpointer and a store the caller brought (and closes), as a persistence of this process:
 * turns serialised by an in-process lock unless a `turnLock` is given (and kept from forgetting
 * their user by one unless a `userLock` is given), nothing guarded, nothing
 * to collect unless a `gc` target is given, no session history dropped after a correction unless
 * `dropSessionHistory` is given. A whole `Persistence` (an engine's `open`) keeps what
 * it declares (its kind, traits and dependencies); only pinging and closing stay with the caller.
 */
export function inProcessPersistence(parts: {
  checkpointer: BaseCheckpointSaver;
  store: BaseStore;
  turnLock?: TurnLock;
  userLock?: UserLock;
  gc?: GcTarget | null;
  dropSessionHistory?: Persistence["dropSessionHistory"];
}): Persistence {
  return {
    kind: "memory",
    traits: IN_PROCESS_TRAITS,
    turnLock: inProcessTurnLock(),
    userLock: inProcessUserLock(),
    gc: null,
    ...parts,
    ping: async () => undefined,
    close: async () => undefined,
  };
}
