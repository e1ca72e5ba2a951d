import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import { AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { MemoryGraphError, messageOf } from "../errors.js";
import { log, resolveLogger, withLogger } from "../logger.js";
import { observeDependencies } from "../telemetry.js";
import { compileGraph, type MemoryGraphApp } from "../graph/build-graph.js";
import { forgetCheckedSession, forgetUser, type ForgetCounts, type SessionForgetCounts } from "../memory/forget.js";
import { DEFAULT_CHECKPOINT_KEEP } from "../memory/gc.js";
import type { MemoryLimits } from "../memory/limits.js";
import type { TranscriptRecord } from "../memory/records.js";
import { threadIdOf, validateScope, type MemoryScope } from "../memory/scope.js";
import { currentLeaf } from "../memory/session-continuity.js";
import { reusingEmbeddings } from "../memory/vector-reuse.js";
import type { GraphDeps } from "../graph/nodes/deps.js";
import { PreparedTurns } from "../graph/nodes/prepared-turn.js";
import { NODE } from "../graph/state/node-names.js";
import type { MemoryState } from "../graph/state/state.js";
import { parseTurnInput, promptText, type TurnInput } from "../graph/state/turn-input.js";
import { skippedTurn, turnResultOf, type TurnResult } from "../graph/state/turn-result.js";
import { summaryDue } from "../graph/nodes/summarize.js";
import { saveTurnRecord } from "../memory/turn-records.js";
import { openPersistence, type Persistence } from "./backends.js";
import { graphDepsOf, type MemoryGraphOptions } from "./graph-options.js";
import { sessionThread, userMemory, type UserMemory } from "./memory-reads.js";
import { prepareTurn } from "./prepare-turn.js";
import type { DependencyStatus } from "../resilience/dependency-health.js";
import { newTurnOutcome, withTurnOutcome } from "../resilience/guarded-storage.js";
import { guardMemoryApi, memoryApi, type MemoryApi } from "./memory-api.js";
import { guardMemoryItems, memoryItems, type MemoryItems } from "./memory-items.js";
import { isSessionStoreDown, sessionlessTurns, type TurnConfig } from "../resilience/degraded-mode.js";
import { DEFAULT_STORAGE_TIMEOUT_MS, makeResilient } from "../resilience/resilient-persistence.js";
import { inProcessPersistence } from "../storage/memory/open.js";
import { withLightRunContext } from "./run-context.js";
import { titleSession } from "./session-titles.js";
import { sessionWindowEdits } from "./session-window-edits.js";
import { tracedTurn } from "./turn-telemetry.js";
import { upkeepOf } from "./upkeep.js";

export { graphDepsOf, type MemoryGraphOptions } from "./graph-options.js";
export type { UserMemory } from "./memory-reads.js";

/**
 * A compiled memory graph with its persistence, ready to take turns; its memory can be searched,
 * imported and exported, and read and corrected one item at a time.
 */
export interface MemoryGraph extends MemoryApi, MemoryItems {
  app: MemoryGraphApp;
  persistence: Persistence;
  limits: MemoryLimits;
  /**
   * Runs one turn: validates the input (storing nothing when it is bad), then invokes the graph.
   * A `messageId` is an idempotency key: sent again with the same text after its turn finished,
   * the stored result comes back (`replayed: true`) and nothing runs; with another text, or the
   * id of an assistant message, it fails with `MESSAGE_ID_CONFLICT` and nothing is written.
   */
  runTurn(input: unknown, options?: TurnOptions): Promise<TurnResult>;
  /**
   * Runs one turn like `runTurn`, handing each piece of call_model's reply to `onToken` as it is
   * produced (the whole reply at once when the model does not stream, as offline, or replayed).
   */
  streamTurn(input: unknown, onToken: (text: string) => void, options?: TurnOptions): Promise<TurnResult>;
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
  /** Forgets a user (every layer, every session) once the upkeep of answered turns has finished. */
  forgetUser(user: Pick<MemoryScope, "tenantId" | "userId">): Promise<ForgetCounts>;
  /** Forgets one session and what was learned in it, holding the session's turn lock (so after its upkeep). */
  forgetSession(scope: MemoryScope): Promise<SessionForgetCounts>;
  /** The checkpointed state of a session, or null when it has none; GRAPH_CLOSED once closed. */
  sessionState(scope: MemoryScope): Promise<MemoryState | null>;
  /** The session's current thread (its messages from the root to the newest), or null when it has none. */
  sessionMessages(scope: MemoryScope): Promise<TranscriptRecord[] | null>;
  /** A user's long-term memory: events, facts (with validity) and summaries, newest first. */
  userMemory(user: Pick<MemoryScope, "tenantId" | "userId">): Promise<UserMemory>;
  /** Resolves when storage answers (readiness); throws when it does not. */
  ping(): Promise<void>;
  /** What this process knows of each storage dependency: up or down since when, outages, degraded and refused turns. */
  health(): DependencyStatus[];
  /** Pings every storage dependency at once, each within `timeoutMs` (default 800), and reports the same. */
  checkHealth(timeoutMs?: number): Promise<DependencyStatus[]>;
  /** Refuses further turns, sends traces still queued (LangSmith, when on), closes storage. */
  close(): Promise<void>;
}

/** Per-call options of `runTurn` and `streamTurn`. */
export interface TurnOptions {
  signal?: AbortSignal;
  /**
   * The checkpoint thread (default: derived from tenant, user and session). Whatever the id, a
   * thread stays bound to the scope of its first turn (`THREAD_SCOPE_MISMATCH` otherwise).
   */
  threadId?: string;
  /** Called once the turn holds its session and passed every check, just before it runs or replays. */
  onStart?: (start: { replayed: boolean }) => void;
}

/** The key LangGraph streams an interrupt (here: the planned stop after build_candidate) under. */
const INTERRUPT = "__interrupt__";

/** Checkpoints a session may gather beyond `checkpointKeep` before a turn prunes it back. */
export const PRUNE_SLACK = 10;

/** Builds the memory graph from options; close it when done. */
export async function createMemoryGraph(options: MemoryGraphOptions = {}): Promise<MemoryGraph> {
  const logger = options.logger === undefined ? undefined : resolveLogger(options.logger);
  // What the graph logs, in any call of it, goes to its own logger when it has one.
  const scoped = <T>(work: () => T): T => (logger ? withLogger(logger, work) : work());
  const plainDeps = scoped(() => graphDepsOf(options));
  // One embedder for the nodes and the store opened here: a message's vector is computed once.
  const deps: GraphDeps = { ...plainDeps, embeddings: reusingEmbeddings(plainDeps.embeddings) };
  const limits = deps.limits;
  const opened: Persistence = options.persistence
    ? inProcessPersistence(options.persistence)
    : await scoped(() =>
        openPersistence({
          backend: options.backend ?? "sqlite",
          sqlitePath: options.sqlitePath,
          databaseUrl: options.databaseUrl,
          redisUrl: options.redisUrl,
          sessionTtlSeconds: limits.sessionTtlSeconds,
          embeddings: deps.embeddings ?? null,
        }),
      );
  // ingest_prompt takes the verdict of `prepareTurn` on the facade's own runs instead of checking again.
  const preparedTurns = new PreparedTurns();
  // Every storage call bounded and watched; without the session store, turns run on `sessionless`.
  const { persistence, health } = makeResilient(opened, options.storageTimeoutMs ?? DEFAULT_STORAGE_TIMEOUT_MS);
  const app = compileGraph({ ...deps, preparedTurns }, persistence, { replyFirst: true });
  const sessionless = sessionlessTurns({ ...deps, preparedTurns }, persistence.store, health);
  const checkpointKeep = options.checkpointKeep ?? DEFAULT_CHECKPOINT_KEEP;
  const api = memoryApi(persistence.store, deps);
  // With metrics on, the dependency gauge reads the same states /readyz answers with.
  const stopObserving = observeDependencies(() => health.statuses());
  let closed = false;

  const refuseWhenClosed = () => {
    if (closed) throw new MemoryGraphError("GRAPH_CLOSED", "the memory graph is closed", { kind: "system" });
  };

  const stateOf = async (threadId: string): Promise<MemoryState | null> => {
    const snapshot = await app.getState({ configurable: { thread_id: threadId } });
    return snapshot.createdAt ? (snapshot.values as MemoryState) : null;
  };

  /** Turns whose reply is out but whose upkeep (a due summary, pruning) still runs. */
  const upkeep = new Set<Promise<void>>();
  const settled = async () => {
    while (upkeep.size > 0) await Promise.all(upkeep);
  };

  const { makeDueSummary, finishUpkeep } = upkeepOf(app);
  // Sessions are titled, when asked for, by the model that writes summaries.
  const titleModel = options.sessionTitles ? (deps.summaryModel === undefined ? deps.chatModel : deps.summaryModel) : null;

  /**
   * The frame of every turn: validate (storing nothing when the input is bad), answer SKIP for no
   * prompt, then — one writer per thread — plan it (a repeated `messageId` replays or conflicts),
   * run to build_candidate, record the result under its idempotency key and hand it to the caller;
   * then, the session still locked, make the summary when one is due and prune old checkpoints.
   * No reply waits for upkeep; `settled()` and `close()` do.
   */
  async function turn(
    raw: unknown,
    options: TurnOptions,
    run: (input: TurnInput, config: TurnConfig, graph: MemoryGraphApp) => Promise<MemoryState>,
  ): Promise<TurnResult> {
    refuseWhenClosed();
    const input = parseTurnInput(raw, limits.maxPromptChars);
    if (!promptText(input) && !input.parentMessageId) return skippedTurn();
    const threadId = options.threadId ?? threadIdOf(input);
    return await new Promise<TurnResult>((resolve, reject) => {
      let answered = false;
      const answer = (result: TurnResult) => {
        answered = true;
        resolve(result);
      };
      const outcome = newTurnOutcome();
      const work = scoped(() =>
        persistence.turnLock.run(threadId, () => withTurnOutcome(outcome, async () => {
          // A turn checkpoints where it stops, once: a failed turn leaves the session as it was.
          // Without the session store it runs on a session rebuilt from long-term memory.
          const session = sessionless.begin(threadId, input, outcome, () => stateOf(threadId));
          const plan = await prepareTurn(persistence.store, input, session.lastState);
          options.onStart?.({ replayed: plan.kind === "replay" });
          if (plan.kind === "replay") return answer(plan.result);
          const ticket = preparedTurns.ticketFor({ input: plan.input, parent: plan.parent });
          const state = await session.run(app, (graph, config) => run(plan.input, withLightRunContext({ ...config, configurable: { ...config.configurable, ...ticket } }), graph));
          const result: TurnResult = { ...turnResultOf(state), degraded: session.degraded() };
          // A turn that ended in ERROR is not a result to replay: a retry answers its message again.
          // An incognito turn leaves nothing in long-term memory, not even its result.
          if (plan.key !== null && result.status !== "ERROR" && input.remember !== false) {
            const request = { text: promptText(input), parentMessageId: input.parentMessageId ?? null };
            await saveTurnRecord(persistence.store, input, { key: plan.key, ...request, result, createdAt: deps.now().toISOString() });
          }
          answer(result);
          // Upkeep works on the checkpoint: a turn that ran without one leaves it to a later turn.
          if (result.degraded.length > 0) return;
          if (titleModel && result.status === "OK" && result.candidate && input.remember !== false) {
            await titleSession(persistence.store, titleModel, input, { user: state.turn?.text ?? "", reply: result.candidate.text });
          }
          if (summaryDue(state, limits.summaryInterval)) await makeDueSummary(session.config);
          if (persistence.gc) await persistence.gc.pruneThread(threadId, checkpointKeep, PRUNE_SLACK);
        })),
      );
      const done = work.catch((error: unknown) => {
        if (error instanceof MemoryGraphError && error.dependency) health.countRefused(error.dependency);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the turn's own error, passed on as thrown
        if (!answered) return reject(error);
        // The reply is out; the summary stays due and the session's next turn makes it.
        scoped(() => (error instanceof MemoryGraphError && error.dependency ? log.warn : log.error)("turn.upkeep_failed", { error: messageOf(error) }));
      });
      upkeep.add(done);
      void done.finally(() => upkeep.delete(done));
    });
  }

  return {
    app,
    persistence,
    limits,
    runTurn: (raw, runOptions = {}) => tracedTurn(raw, undefined, () => turn(raw, runOptions, (input, config, graph) => graph.invoke(input, { ...config, signal: runOptions.signal }))),
    streamTurn: (raw, tokenHandler, runOptions = {}) => tracedTurn(raw, tokenHandler, (timed) => {
      const onToken = timed ?? tokenHandler;
      return replayTokens(onToken, turn(raw, runOptions, async (input, config, graph) => {
        const stream = await graph.stream(input, { ...config, streamMode: ["messages", "values"], signal: runOptions.signal });
        let final: MemoryState | null = null;
        let streamed = false;
        for await (const [mode, payload] of stream) {
          if (mode === "values") {
            // The stop after build_candidate comes as a values chunk of its own: `{ __interrupt__: [] }`.
            if (!(INTERRUPT in payload)) final = payload;
            continue;
          }
          const [message, metadata] = payload as [BaseMessage, { langgraph_node?: string }];
          if (metadata.langgraph_node !== NODE.callModel || message.getType() !== "ai") continue;
          // A streaming model sends chunks, then the node's finished reply: forward one or the other.
          const chunk = AIMessageChunk.isInstance(message);
          if (!chunk && streamed) continue;
          streamed ||= chunk;
          const text = message.text;
          if (text) onToken(text);
        }
        if (!final) throw new MemoryGraphError("STREAM_EMPTY", "the graph produced no state", { kind: "system" });
        return final;
      }));
    }),
    sessionState: (scope) =>
      scoped(() => {
        refuseWhenClosed();
        return stateOf(threadIdOf(validateScope(scope)));
      }),
    sessionMessages: (scope) =>
      scoped(async () => {
        refuseWhenClosed();
        const valid = validateScope(scope);
        // Turns answered without the session store are on the thread too (their mark names its end).
        const state = await stateOf(threadIdOf(valid)).catch((error: unknown) => {
          if (isSessionStoreDown(error)) return null;
          throw error;
        });
        const leaf = await currentLeaf(persistence.store, valid, state?.session ?? null);
        return leaf ? sessionThread(persistence.store, valid, leaf) : null;
      }),
    userMemory: (user) =>
      scoped(() => {
        refuseWhenClosed();
        return userMemory(persistence.store, user);
      }),
    ping: () => persistence.ping(),
    health: () => health.statuses(),
    checkHealth: (timeoutMs = 800) => health.check(timeoutMs),
    settled,
    finishUpkeep: (threadId) =>
      scoped(() => {
        refuseWhenClosed();
        return finishUpkeep(threadId);
      }),
    ...guardMemoryApi(api, { scoped, refuseWhenClosed, settled }),
    ...guardMemoryItems(memoryItems(persistence.store, persistence.turnLock, deps, sessionWindowEdits(app)), { scoped, refuseWhenClosed }),
    forgetUser: (user) =>
      scoped(async () => {
        refuseWhenClosed();
        await settled();
        return forgetUser(persistence, user);
      }),
    forgetSession: (scope) =>
      scoped(() => {
        refuseWhenClosed();
        const checked = validateScope(scope);
        return persistence.turnLock.run(threadIdOf(checked), () => forgetCheckedSession(persistence, checked));
      }),
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
}

/** A replayed turn ran no model: its caller's token handler gets the stored reply in one piece. */
async function replayTokens(onToken: (text: string) => void, result: Promise<TurnResult>): Promise<TurnResult> {
  const done = await result;
  if (done.replayed && done.candidate) onToken(done.candidate.text);
  return done;
}
