import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { messageOf } from "../../errors.js";
import { log } from "../../logger.js";
import { threadIdOf, userKeyOf, type MemoryScope } from "../../memory/scope.js";
import type { GraphDeps } from "../../graph/nodes/deps.js";
import type { TurnResult } from "../../graph/nodes/build-candidate.js";
import type { MemoryGraph } from "../create-memory-graph.js";

/** A turn's result once its memory is written, with whose turn it was. */
export type AgentTurnResult = TurnResult & { scope: MemoryScope };

/**
 * What the middleware's hooks and tools work with: the memory graph opened for it (its persistence,
 * locks and memory API), the deps its nodes were built with, and the work still running after the
 * agent answered.
 */
export interface AgentParts {
  graph: MemoryGraph;
  store: BaseStore;
  deps: GraphDeps;
  /** Runs `work` with the graph's own logger, when it has one. */
  scoped: <T>(work: () => T) => T;
  /**
   * Runs `work` as the session's one writer (its turn lock, the graph's too), holding its user's
   * lock shared so that forgetting the user waits for it: the locks a turn of the graph holds.
   */
  locked: <T>(scope: MemoryScope, work: () => Promise<T>) => Promise<T>;
  /**
   * Runs `work` after the session's earlier work of this kind in this process has ended (each
   * turn's classification and bookkeeping, in the order of the turns), holding no lock.
   */
  inOrder: <T>(scope: MemoryScope, work: () => Promise<T>) => Promise<T>;
  /** Runs `work` after the reply, off its path (`settled()` waits for it); its failure is logged. */
  afterReply: (scope: MemoryScope, work: () => Promise<void>) => void;
  /** Resolves once every turn's work after its reply is done. */
  settled: () => Promise<void>;
  /** The user-message writes a turn started before its model call, by turn id (see `startedWrites`). */
  writes: ReturnType<typeof startedWrites>;
  onTurn?: (result: AgentTurnResult) => void;
}

/** The parts of a middleware over `graph`. */
export function agentParts(graph: MemoryGraph, deps: GraphDeps, scoped: <T>(work: () => T) => T, onTurn?: (result: AgentTurnResult) => void): AgentParts {
  const { persistence } = graph;
  const running = new Set<Promise<void>>();
  const queues = new Map<string, Promise<unknown>>();
  return {
    graph,
    store: persistence.store,
    deps,
    scoped,
    locked: (scope, work) => persistence.userLock.shared(userKeyOf(scope), () => persistence.turnLock.run(threadIdOf(scope), work)),
    inOrder<T>(scope: MemoryScope, work: () => Promise<T>): Promise<T> {
      const key = threadIdOf(scope);
      const turn = (queues.get(key) ?? Promise.resolve()).then(work);
      const tail = turn.catch(() => undefined);
      queues.set(key, tail);
      void tail.then(() => {
        if (queues.get(key) === tail) queues.delete(key);
      });
      return turn;
    },
    afterReply(scope, work) {
      const done = scoped(work).catch((error: unknown) => {
        scoped(() => log.error("agent.upkeep_failed", { tenant: scope.tenantId, error: messageOf(error) }));
      });
      running.add(done);
      void done.finally(() => running.delete(done));
    },
    async settled() {
      while (running.size > 0) await Promise.all(running);
    },
    writes: startedWrites(),
    ...(onTurn ? { onTurn } : {}),
  };
}

/**
 * Writes a turn starts before its model call and finishes after it (the user message, when an
 * embeddings provider indexes it: see `userRowWriter`), so that no embedding stands before the
 * first token. Held by turn id in this process between the agent's two hooks (a promise is no state
 * a checkpointer keeps); `finish` awaits one and throws its error. A write that succeeded leaves at
 * once; one that failed stays until its turn's `finish` reads it.
 */
export function startedWrites() {
  const pending = new Map<string, Promise<{ error: unknown } | null>>();
  return {
    start(turnId: string, write: Promise<void>): void {
      const outcome = write.then(
        () => {
          pending.delete(turnId);
          return null;
        },
        (error: unknown) => ({ error }),
      );
      pending.set(turnId, outcome);
    },
    async finish(turnId: string): Promise<void> {
      const outcome = pending.get(turnId);
      pending.delete(turnId);
      const failed = await outcome;
      if (failed) throw failed.error;
    },
  };
}
