import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import { resolveLogger, withLogger } from "../logger.js";
import { observeDependencies } from "../telemetry.js";
import { compileGraph, type MemoryGraphApp } from "../graph/build-graph.js";
import { DEFAULT_CHECKPOINT_KEEP } from "../memory/gc.js";
import type { MemoryLimits } from "../memory/limits.js";
import { withStore } from "../memory/store-io.js";
import { reusingEmbeddings } from "../memory/vector-reuse.js";
import { summarizerOf, type GraphDeps } from "../graph/nodes/deps.js";
import type { TurnResult } from "../graph/nodes/build-candidate.js";
import type { TurnInput, ValidTurn } from "../graph/state/turn-input.js";
import { MemoryGraphError } from "../errors.js";
import { openPersistence, type Persistence } from "./backends.js";
import { graphDepsOf, type MemoryGraphOptions } from "./graph-options.js";
import type { DependencyStatus } from "../resilience/dependency-health.js";
import { guardMemoryApi, memoryApi, type MemoryApi } from "./memory-api.js";
import { guardMemoryItems, memoryItems, type MemoryItems } from "./memory-items.js";
import { sessionlessTurns } from "../resilience/guarded-storage.js";
import { DEFAULT_STORAGE_TIMEOUT_MS, makeResilient } from "../resilience/resilient-persistence.js";
import { sessionApi, type SessionApi } from "./session-api.js";
import { inProcessPersistence } from "../storage/memory/open.js";
import { sessionWindowEdits } from "./session-window-edits.js";
import { createTurnRunner, type TurnOptions } from "./turn-runner.js";

export { graphDepsOf, type MemoryGraphOptions } from "./graph-options.js";
export type { UserMemory } from "./memory-reads.js";
export { PRUNE_SLACK, type TurnOptions } from "./turn-runner.js";

/**
 * A compiled memory graph with its persistence, ready to take turns; its memory can be searched,
 * imported and exported, and read and corrected one item at a time.
 */
export interface MemoryGraph extends MemoryApi, MemoryItems, SessionApi {
  app: MemoryGraphApp;
  persistence: Persistence;
  limits: MemoryLimits;
  /**
   * Runs one turn: validates the input (storing nothing when it is bad), then invokes the graph.
   * A `messageId` is an idempotency key: sent again with the same text after its turn finished,
   * the stored result comes back (`replayed: true`) and nothing runs; with another text, or the
   * id of an assistant message, it fails with `MESSAGE_ID_CONFLICT` and nothing is written. The
   * input is typed (`TurnInput`: a misspelt field does not compile) and still checked at run time
   * for callers without types; a `ValidTurn` (an input checked already, as the HTTP routes have)
   * is taken as it is.
   */
  runTurn(input: TurnInput | ValidTurn, options?: TurnOptions): Promise<TurnResult>;
  /**
   * Runs one turn like `runTurn`, handing each piece of call_model's reply to `onToken` as it is
   * produced (the whole reply at once when the model does not stream, as offline, or replayed).
   */
  streamTurn(input: TurnInput | ValidTurn, onToken: (text: string) => void, options?: TurnOptions): Promise<TurnResult>;
  /**
   * Resolves once every answered turn's upkeep has finished: a turn's result comes back when
   * build_candidate is done, and a due summary is made after it, with the session still locked.
   */
  settled(): Promise<void>;
  /**
   * Makes what an answered turn of the thread left undone: the summary it found due, when the
   * process stopped (or its CPU was throttled) before making it. Takes no lock: the caller holds
   * the thread's turn lock (`collectGarbage` does, and `npm run gc` passes this as its `upkeep`).
   * True when a summary was made.
   */
  finishUpkeep(this: void, threadId: string): Promise<boolean>;
  /** Resolves when storage answers (readiness); throws when it does not. */
  ping(): Promise<void>;
  /** What this process knows of each storage dependency: up or down since when, outages, degraded and refused turns. */
  health(): DependencyStatus[];
  /** Pings every storage dependency at once, each within `timeoutMs` (default 800), and reports the same. */
  checkHealth(timeoutMs?: number): Promise<DependencyStatus[]>;
  /** Refuses further turns, sends traces still queued (LangSmith, when on), closes storage. */
  close(): Promise<void>;
}

/** Builds the memory graph from options; close it when done. */
export async function createMemoryGraph(options: MemoryGraphOptions = {}): Promise<MemoryGraph> {
  return (await openMemoryGraph(options)).graph;
}

/**
 * A memory graph with what its nodes were built with: the deps (one embedder for the nodes and the
 * store) and the scope of its logger. For code beside the graph that runs the same nodes on the
 * same persistence (the agent middleware); not part of the package's API.
 */
export async function openMemoryGraph(options: MemoryGraphOptions = {}): Promise<{ graph: MemoryGraph; deps: GraphDeps; scoped: <T>(work: () => T) => T }> {
  const logger = options.logger === undefined ? undefined : resolveLogger(options.logger);
  // What the graph logs, in any call of it, goes to its own logger when it has one.
  const scoped = <T>(work: () => T): T => (logger ? withLogger(logger, work) : work());
  const plainDeps = scoped(() => graphDepsOf(options));
  // One embedder for the nodes and the store opened here: a message's vector is computed once.
  const deps: GraphDeps = { ...plainDeps, embeddings: reusingEmbeddings(plainDeps.embeddings) };
  const limits = deps.limits;
  const opened = await openedPersistence(options, deps, scoped);
  // Every storage call bounded and watched; without the session store, turns run on `sessionless`.
  const { persistence, health } = makeResilient(opened, options.storageTimeoutMs ?? DEFAULT_STORAGE_TIMEOUT_MS);
  // `app` takes a TurnInput, like the graph alone; the turn runner's twin takes the turns it planned.
  const app = compileGraph(deps, persistence, { replyFirst: true });
  // Its nodes get the store through the run config, not compiled in: see `withStore`.
  const planned = withStore(compileGraph(deps, { checkpointer: persistence.checkpointer }, { planned: true, summariesApart: true }), persistence.store);
  const sessionless = sessionlessTurns(deps, persistence.store, health);
  const checkpointKeep = options.checkpointKeep ?? DEFAULT_CHECKPOINT_KEEP;
  const api = memoryApi(persistence.store, deps);
  // With metrics on, the dependency gauge reads the same states /readyz answers with.
  const stopObserving = observeDependencies(() => health.statuses());
  let closed = false;

  const refuseWhenClosed = () => {
    if (closed) throw new MemoryGraphError("GRAPH_CLOSED", "the memory graph is closed", { kind: "system" });
  };

  // Sessions are titled, when asked for, by the model that writes summaries.
  const titleModel = options.sessionTitles ? summarizerOf(deps) : null;
  const turns = createTurnRunner({ app: planned, persistence, health, sessionless, deps, checkpointKeep, titleModel, scoped, refuseWhenClosed });
  const { stateOf, settled } = turns;

  const graph: MemoryGraph = {
    app,
    persistence,
    limits,
    runTurn: turns.runTurn,
    streamTurn: turns.streamTurn,
    ...sessionApi({ persistence, stateOf, scoped, refuseWhenClosed, aheadMax: 2 * deps.limits.window.maxMessages }),
    ping: () => persistence.ping(),
    health: () => health.statuses(),
    checkHealth: (timeoutMs = 800) => health.check(timeoutMs),
    settled,
    finishUpkeep: (threadId) =>
      scoped(() => {
        refuseWhenClosed();
        return turns.finishUpkeep(threadId);
      }),
    ...guardMemoryApi(api, { scoped, refuseWhenClosed, settled }),
    ...guardMemoryItems(memoryItems(persistence.store, { turn: persistence.turnLock, user: persistence.userLock }, deps, sessionWindowEdits(app, persistence.dropSessionHistory)), { scoped, refuseWhenClosed }),
    close: () =>
      scoped(async () => {
        closed = true;
        stopObserving();
        // Upkeep of answered turns (a summary being made) finishes before storage closes.
        await settled();
        // Traces of finished turns still queued for LangSmith (when tracing is on) go out first.
        await awaitAllCallbacks();
        await persistence.close();
      }),
  };
  return { graph, deps, scoped };
}

/** The persistence the options name: the caller's own, or a backend opened here. */
async function openedPersistence(options: MemoryGraphOptions, deps: GraphDeps, scoped: <T>(work: () => T) => T): Promise<Persistence> {
  if (options.persistence) {
    return inProcessPersistence(options.persistence);
  }
  return await scoped(() =>
    openPersistence({
      backend: options.backend ?? "sqlite",
      sqlitePath: options.sqlitePath,
      databaseUrl: options.databaseUrl,
      redisUrl: options.redisUrl,
      sessionTtlSeconds: deps.limits.sessionTtlSeconds,
      embeddings: deps.embeddings ?? null,
      recallCache: options.recallCache,
    }),
  );
}
