import type { PersistenceTraits } from "../../memory/ports/persistence.js";

/**
 * The traits of an engine that keeps sessions, long-term memory and the turn lock in one shared
 * database (SQLite's file, Postgres): the lock and the checkpoints live in it too, so a lock that
 * cannot be reached is that store's outage.
 */
export const ONE_DATABASE_TRAITS: PersistenceTraits = Object.freeze({
  sharedAcrossProcesses: true,
  turnLockIn: "memory_store",
  prunedCheckpointsIn: "session_store",
});

/** The traits of storage held in this process alone (LangGraph's in-memory saver and store, an in-process lock). */
export const IN_PROCESS_TRAITS: PersistenceTraits = Object.freeze({
  sharedAcrossProcesses: false,
  turnLockIn: "memory_store",
  prunedCheckpointsIn: "session_store",
});
