import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph-checkpoint";
import type { StorageDependency } from "../../errors.js";

/** The storage engines `openPersistence` knows by name (`MEMORY_BACKEND`). */
export type BackendKind = "memory" | "sqlite" | "postgres" | "redis";

/**
 * One thread, one writer: `run(threadId, work)` runs `work` while no other turn of the same thread
 * runs — in this process (always, so a process sends one waiter per thread to the engine) and, for
 * the cross-process locks, in every process sharing the engine.
 */
export interface TurnLock {
  run<T>(threadId: string, work: () => Promise<T>): Promise<T>;
}

/**
 * One user's turns against forgetting that user, on every instance: each turn holds the user's lock
 * shared (from before its thread's turn lock until its upkeep is done); forgetting holds it alone.
 * Keyed by `userKeyOf` (tenant/user). Always taken before a thread's turn lock, never after.
 */
export interface UserLock {
  /** Runs `work` holding the user's lock beside the user's other turns; waits while the user is being forgotten. */
  shared<T>(userKey: string, work: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` holding the user's lock alone: once every shared holder (in every process sharing
   * the engine) has left; shared asks that come meanwhile wait for it, so a busy user cannot starve it.
   */
  exclusive<T>(userKey: string, work: () => Promise<T>): Promise<T>;
}

/**
 * What garbage collection works on: a checkpointer and a store, plus what only the engine knows.
 * Each engine folder builds its own (`src/storage/<engine>/gc-target.ts`).
 */
export interface GcTarget {
  checkpointer: BaseCheckpointSaver;
  store: BaseStore;
  listThreadIds(): Promise<string[]>;
  /**
   * Keeps the newest `keep` checkpoints of the thread (never fewer than one); returns how many
   * went. With `slack`, a thread holding at most `keep + slack` is left as it is.
   */
  pruneThread(threadId: string, keep: number, slack?: number): Promise<number>;
  /** The tenant labels the store holds items of. */
  listTenants(): Promise<string[]>;
  /** Deletes full-text and vector rows whose item is gone; returns how many. */
  removeOrphanedIndexRows(): Promise<number>;
  /** Deletes the store's items whose TTL has run out; returns how many (left out: the store has no TTL). */
  sweepExpiredItems?(): Promise<number>;
  /** The turn lock of the service, so a thread is never collected while a turn writes it. */
  lock?: TurnLock;
}

/**
 * A checkpointer, a store and a per-thread turn lock, opened together and closed together: what
 * every engine's `open.ts` returns.
 */
export interface Persistence {
  /** The engine's name, for logs and health reports; nothing branches on it (see `traits`). */
  kind: BackendKind;
  /** Where its parts live, as the engine declares it: what the storage guards go by. */
  traits: PersistenceTraits;
  checkpointer: BaseCheckpointSaver;
  store: BaseStore;
  /** One thread, one writer: across processes where the engine is shared. */
  turnLock: TurnLock;
  /** A user's turns against forgetting the user: in the engine that keeps long-term memory. */
  userLock: UserLock;
  /** What `npm run gc` collects on this engine (null where there is nothing to collect). */
  gc: GcTarget | null;
  /**
   * Deletes every checkpoint of a session's thread but the newest, with their pending writes and
   * the channel values only they held, where the engine checkpoints sessions: run after a
   * correction of the session's window, since older checkpoints still hold what it took out.
   * Absent: the checkpointer is not ours (its history is left as it is). Returns how many went.
   */
  dropSessionHistory?: (threadId: string) => Promise<number>;
  /** Checks storage answers (for readiness probes). */
  ping(): Promise<void>;
  /**
   * Which engine serves each storage dependency, and a ping of each (readiness names the one that
   * fails). Default: both served by `kind`, pinged by `ping`.
   */
  dependencies?: DependencyProbe[];
  close(): Promise<void>;
}

/**
 * What a persistence declares about itself, so that code outside its engine folder asks the
 * persistence instead of branching on its `kind`.
 */
export interface PersistenceTraits {
  /**
   * Its turn lock and storage are reached across processes (a server or a file), so a call may
   * fail or hang and is worth guarding; false: all in this process (nothing to guard).
   */
  sharedAcrossProcesses: boolean;
  /**
   * The storage dependency the turn lock lives in. In the session store (Redis), a turn whose lock
   * cannot be reached takes this process's own lock and runs without the session store; in the
   * memory store (SQLite, Postgres), it is refused as that store's outage.
   */
  turnLockIn: StorageDependency;
  /**
   * The storage dependency holding the checkpoints `gc.pruneThread` prunes: the session store's
   * where sessions are checkpointed next to long-term memory; the memory store's where sessions
   * expire by TTL elsewhere and collection works on the long-term engine.
   */
  prunedCheckpointsIn: StorageDependency;
}

/** One storage dependency of a persistence: the engine that serves it, and how to ask whether it answers. */
export interface DependencyProbe {
  name: StorageDependency;
  engine: string;
  ping: () => Promise<void>;
}
