import { AsyncLocalStorage } from "node:async_hooks";
import type { RunnableConfig } from "@langchain/core/runnables";
import { MemorySaver } from "@langchain/langgraph";
import type { BaseCheckpointSaver, BaseStore, Checkpoint } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError, type StorageDependency } from "../errors.js";
import { log } from "../logger.js";
import { inSpan } from "../telemetry.js";
import { compileGraph, type MemoryGraphApp } from "../graph/build-graph.js";
import type { GraphDeps } from "../graph/nodes/deps.js";
import type { MemoryState } from "../graph/state/state.js";
import type { LateWrites } from "../memory/late-writes.js";
import { markAhead } from "../memory/session-continuity.js";
import type { MemoryScope } from "../memory/scope.js";
import { withStore } from "../memory/store-io.js";
import type { DependencyHealth } from "./dependency-health.js";
import { getTupleAdopting } from "./legacy-threads.js";
import { isStorageFailure, withinStorageTimeout } from "./storage-failure.js";

/**
 * Storage behind a guard: every call is bounded by the storage timeout, a call that fails because
 * its storage is unreachable marks that dependency down (see `DependencyHealth`) and fails as
 * `SESSION_STORE_UNAVAILABLE` / `MEMORY_STORE_UNAVAILABLE` (naming the `dependency`), and while a
 * dependency is down its calls fail at once. Inside a turn (`withTurnOutcome`), checkpoint writes
 * are held until the turn's run has ended well: a run that fails leaves the session as it was (a
 * LangGraph run checkpoints where it stopped, even on an error). And on purpose: a held write the
 * session store cannot take is skipped (the turn's messages are already in long-term memory) and
 * the turn is told so.
 */

/** What the guards learned about the turn they run in. */
export interface TurnOutcome {
  /** A checkpoint write was skipped: the session store did not take it. */
  sessionWriteSkipped: boolean;
  /** While true, checkpoint writes wait in `held` (see `flushHeld`). */
  holding: boolean;
  held: (() => Promise<unknown>)[];
}

/** A turn's outcome before its run: checkpoint writes held. */
export function newTurnOutcome(): TurnOutcome {
  return { sessionWriteSkipped: false, holding: true, held: [] };
}

/**
 * Ends holding: with `keep`, makes the held checkpoint writes in order (a session store that does
 * not take them marks them skipped); without, drops them (the run failed).
 */
export async function flushHeld(outcome: TurnOutcome, keep: boolean): Promise<void> {
  const held = outcome.held.splice(0);
  outcome.holding = false;
  if (!keep) return;
  for (const write of held) {
    try {
      await write();
    } catch (error) {
      if ((error as { dependency?: unknown }).dependency !== "session_store") throw error;
      outcome.sessionWriteSkipped = true;
      log.debug("checkpoint.write_skipped", { reason: "session_store_unavailable" });
      return;
    }
  }
}

const outcomes = new AsyncLocalStorage<TurnOutcome>();

/** Runs one turn's work with an outcome the guards fill in. */
export function withTurnOutcome<T>(outcome: TurnOutcome, work: () => Promise<T>): Promise<T> {
  return outcomes.run(outcome, work);
}

interface Guard {
  health: DependencyHealth;
  timeoutMs: number;
}

/**
 * Runs one storage call of `dependency` under the guard's timeout, recording what it says of the
 * dependency; with tracing on, as a span named after the store (or checkpointer) method.
 */
export async function guarded<T>(guard: Guard, dependency: StorageDependency, call: () => Promise<T>, operation = "call"): Promise<T> {
  if (!guard.health.admits(dependency)) throw guard.health.unavailable(dependency);
  return inSpan(`${dependency} ${operation}`, { "db.operation.name": operation, "memory_graph.dependency": dependency }, () => guardedCall(guard, dependency, call));
}

async function guardedCall<T>(guard: Guard, dependency: StorageDependency, call: () => Promise<T>): Promise<T> {
  try {
    const value = await withinStorageTimeout(call(), guard.timeoutMs);
    guard.health.reportSuccess(dependency);
    return value;
  } catch (error) {
    if (!isStorageFailure(error)) throw error;
    guard.health.reportFailure(dependency, error);
    throw guard.health.unavailable(dependency, error);
  }
}

/** The async methods of a store that reach its storage (our stores' extras included). */
const STORE_CALLS = new Set([
  "batch",
  "get",
  "search",
  "put",
  "delete",
  "listNamespaces",
  "countNamespace",
  "deleteNamespacePrefix",
  "listTenants",
  "removeOrphanedIndexRows",
  "sweepExpiredItems",
]);

/** `store` behind the guard of the `memory_store` dependency (every other property as it is). */
export function guardStore<S extends BaseStore>(store: S, guard: Guard): S {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      const method = value as (...args: unknown[]) => unknown;
      if (typeof property !== "string" || !STORE_CALLS.has(property)) return method.bind(target);
      return (...args: unknown[]) => guarded(guard, "memory_store", async () => method.apply(target, args), property);
    },
  });
}

/**
 * `checkpointer` behind the guard of the `session_store` dependency. Reads fail as
 * SESSION_STORE_UNAVAILABLE (the caller runs the turn degraded); writes inside a turn that the
 * store does not take are skipped and reported to the turn; outside a turn they fail. A read of a
 * session's thread adopts its thread of the old naming (`getTupleAdopting`), within the read's
 * guard and never held: it only moves what the session already had.
 */
export function guardCheckpointer<C extends BaseCheckpointSaver>(checkpointer: C, guard: Guard): C {
  // Inside a turn a write waits for the end of the run; the config it returns is the one it would.
  const held = async <T>(operation: string, call: () => Promise<T>, result: () => T): Promise<T> => {
    const outcome = outcomes.getStore();
    if (!outcome?.holding) return guarded(guard, "session_store", call, operation);
    outcome.held.push(() => guarded(guard, "session_store", call, operation));
    return result();
  };
  return new Proxy(checkpointer, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      switch (property) {
        case "getTuple":
          // A session's thread of the old naming is taken over on its first read (see legacy-threads.ts).
          return (config: RunnableConfig) => guarded(guard, "session_store", () => getTupleAdopting(target, config), property);
        case "deleteThread":
          return (...args: unknown[]) => guarded(guard, "session_store", async () => method(...args), property);
        case "list":
          return (...args: unknown[]) => guardedList(guard, () => method(...args) as AsyncGenerator<unknown>);
        case "put":
          return (config: RunnableConfig, checkpoint: Checkpoint, ...rest: unknown[]) =>
            held("put", async () => method(config, checkpoint, ...rest) as Promise<RunnableConfig>, () => ({
              configurable: { thread_id: config.configurable?.thread_id as unknown, checkpoint_ns: (config.configurable?.checkpoint_ns as unknown) ?? "", checkpoint_id: checkpoint.id },
            }));
        case "putWrites":
          return (...args: unknown[]) => held("putWrites", async () => method(...args) as Promise<void>, () => undefined);
        default:
          return method;
      }
    },
  });
}

async function* guardedList(guard: Guard, open: () => AsyncGenerator<unknown>): AsyncGenerator<unknown> {
  const iterator = open();
  for (;;) {
    const next = await guarded(guard, "session_store", () => iterator.next(), "list");
    if (next.done) return;
    yield next.value;
  }
}

// Degraded mode: turns that run without the session store.

/**
 * The run config of a turn: its thread (its checkpoint written once, when the run ends); what the
 * turn runner tells call_model: whether the turn's result goes out as soon as the reply is stored
 * (`answerOnReply`), whether to stream the reply's tokens (`streamReply`), and where to leave the
 * writes the runner awaits after the answer (`lateWrites`: the reply's vector).
 */
export type TurnConfig = { configurable: { thread_id: string; answerOnReply?: boolean; streamReply?: boolean; lateWrites?: LateWrites }; durability: "exit" };

/**
 * Turns that run without the session store: the same graph on a checkpointer of this process
 * alone, each run starting from no checkpoint (ingest_prompt then rebuilds the session from
 * long-term memory, see `carryOver` in nodes/ingest-prompt.ts) and forgotten when it ends; the session is then left a
 * continuity mark, so that its next turn on the session store catches up with these.
 */
export function sessionlessTurns(deps: GraphDeps, store: BaseStore, health: DependencyHealth) {
  const saver = new MemorySaver();
  const sessionlessApp: MemoryGraphApp = withStore(compileGraph(deps, { checkpointer: saver }, { planned: true, summariesApart: true }), store);

  async function finish(threadId: string, scope: MemoryScope, state: MemoryState | null): Promise<void> {
    await saver.deleteThread(threadId);
    if (!state) return;
    const throughId = state.session.lastMessageId;
    if (throughId) await markAhead(store, scope, { throughId, at: deps.now().toISOString() });
    health.countDegraded("session_store", { sessionId: scope.sessionId });
  }

  /**
   * One turn of `threadId`, on the session store when it answers: `lastState` reads its checkpoint
   * (null when the store is down), `run` runs the graph on `app` — or, when the session store is
   * down or its checkpoint read fails before anything ran, without it. `degraded` lists what the
   * turn ran without (a checkpoint write skipped on purpose counts too: see guarded-storage.ts).
   */
  function begin(threadId: string, scope: MemoryScope, outcome: TurnOutcome, readState: () => Promise<MemoryState | null>) {
    let down = !health.admits("session_store");
    const config: TurnConfig = { configurable: { thread_id: threadId }, durability: "exit" };
    return {
      config,
      degraded: (): StorageDependency[] => (down || outcome.sessionWriteSkipped ? ["session_store"] : []),
      lastState: async (): Promise<MemoryState | null> => {
        if (down) return null;
        try {
          return await readState();
        } catch (error) {
          if (!isSessionStoreDown(error)) throw error;
          down = true;
          return null;
        }
      },
      run: async (app: MemoryGraphApp, run: (graph: MemoryGraphApp, config: TurnConfig) => Promise<MemoryState>): Promise<MemoryState> => {
        let state: MemoryState | null = null;
        try {
          if (!down) {
            try {
              state = await run(app, config);
            } catch (error) {
              await flushHeld(outcome, false);
              // The checkpoint read failed before anything ran: the same turn, without it.
              if (!isSessionStoreDown(error)) throw error;
              down = true;
            }
            await flushHeld(outcome, true);
          }
          if (down) state = await run(sessionlessApp, config);
          return state as MemoryState;
        } finally {
          if (down || outcome.sessionWriteSkipped) await finish(threadId, scope, state);
        }
      },
    };
  }

  return { begin };
}

/** Whether `error` says the session store did not answer (the turn may run without it). */
export function isSessionStoreDown(error: unknown): boolean {
  return error instanceof MemoryGraphError && error.code === "SESSION_STORE_UNAVAILABLE";
}
