import { MemorySaver } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError, type StorageDependency } from "../errors.js";
import { compileGraph, type MemoryGraphApp } from "../graph/build-graph.js";
import { markAhead } from "../memory/session-continuity.js";
import type { MemoryScope } from "../memory/scope.js";
import { withStore } from "../memory/store-io.js";
import type { GraphDeps } from "../graph/nodes/deps.js";
import type { MemoryState } from "../graph/state/state.js";
import type { DependencyHealth } from "./dependency-health.js";
import { flushHeld, type TurnOutcome } from "./guarded-storage.js";

/** The run config of a turn: its thread; its checkpoint is written once, when the run ends. */
export type TurnConfig = { configurable: { thread_id: string }; durability: "exit" };

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
