import type { StorageDependency } from "../errors.js";
import type { Persistence } from "../memory/ports/persistence.js";
import { DependencyHealth, type DependencySpec } from "./dependency-health.js";
import { guardCheckpointer, guarded, guardStore } from "./guarded-storage.js";
import { guardTurnLock, guardUserLock } from "./guarded-turn-lock.js";

/** How long one storage call may take before it counts as an outage, unless configured (STORAGE_TIMEOUT_MS). */
export const DEFAULT_STORAGE_TIMEOUT_MS = 1500;

/** Persistence whose every call is bounded and watched, with what watches it. */
export interface ResilientPersistence {
  persistence: Persistence;
  health: DependencyHealth;
}

/**
 * Puts `raw` behind the storage guards (see guarded-storage.ts): the checkpointer guarded as the
 * `session_store`, the store as the `memory_store`, the turn lock as the dependency its traits say
 * it lives in (in the session store, it is replaced by an in-process lock while that store is
 * down; a lock of this process alone is left as it is), the user lock as the memory store (a turn's
 * shared hold likewise gives way to this process's own lock while that store is down, where the
 * turn lock does), and checkpoint pruning as the dependency
 * holding the checkpoints it prunes (a session's history, as the session store).
 */
export function makeResilient(raw: Persistence, timeoutMs: number): ResilientPersistence {
  // One engine serves both: pinged through the persistence handed out (whose `ping` a host may replace).
  const specs: DependencySpec[] = raw.dependencies ?? [
    { name: "session_store", engine: raw.kind, ping: () => persistence.ping() },
    { name: "memory_store", engine: raw.kind, ping: () => persistence.ping() },
  ];
  const health = new DependencyHealth(specs, { timeoutMs });
  const guard = { health, timeoutMs };
  const pingOf = (name: StorageDependency) => specs.find((spec) => spec.name === name)?.ping ?? (() => persistence.ping());
  const { sharedAcrossProcesses, turnLockIn, prunedCheckpointsIn } = raw.traits;
  const turnLock = sharedAcrossProcesses
    ? guardTurnLock(raw.turnLock, { health, timeoutMs, dependency: turnLockIn, ping: pingOf(turnLockIn), localWhenDown: turnLockIn === "session_store" })
    : raw.turnLock;
  const userLock = sharedAcrossProcesses
    ? guardUserLock(raw.userLock, { health, timeoutMs, dependency: "memory_store", ping: pingOf("memory_store"), localWhenDown: turnLockIn === "session_store" })
    : raw.userLock;
  const gc = raw.gc;
  const dropHistory = raw.dropSessionHistory;
  const persistence: Persistence = {
    ...raw,
    checkpointer: guardCheckpointer(raw.checkpointer, guard),
    store: guardStore(raw.store, guard),
    turnLock,
    userLock,
    gc: gc && { ...gc, pruneThread: (...args: Parameters<typeof gc.pruneThread>) => guarded(guard, prunedCheckpointsIn, () => gc.pruneThread(...args)) },
    dropSessionHistory: dropHistory && ((threadId: string) => guarded(guard, "session_store", () => dropHistory(threadId))),
    close: async () => {
      health.close();
      await raw.close();
    },
  };
  return { health, persistence };
}
