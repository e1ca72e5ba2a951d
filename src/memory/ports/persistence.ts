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
  kind: BackendKind;
  checkpointer: BaseCheckpointSaver;
  store: BaseStore;
  /** One thread, one writer: across processes where the engine is shared. */
  turnLock: TurnLock;
  /** What `npm run gc` collects on this engine (null where there is nothing to collect). */
  gc: GcTarget | null;
  /** Checks storage answers (for readiness probes). */
  ping(): Promise<void>;
  /**
   * Which engine serves each storage dependency, and a ping of each (readiness names the one that
   * fails). Default: both served by `kind`, pinged by `ping`.
   */
  dependencies?: DependencyProbe[];
  close(): Promise<void>;
}

/** One storage dependency of a persistence: the engine that serves it, and how to ask whether it answers. */
export interface DependencyProbe {
  name: StorageDependency;
  engine: string;
  ping: () => Promise<void>;
}
