import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { MemoryGraphError, messageOf } from "../errors.js";
import { log } from "../logger.js";
import type { MemoryGraphApp } from "../graph/build-graph.js";
import { threadIdOf } from "../memory/scope.js";
import { saveTurnRecord } from "../memory/turn-records.js";
import type { GraphDeps } from "../graph/nodes/deps.js";
import { planTurn } from "../graph/nodes/turn.js";
import { summaryDue } from "../graph/nodes/summarize.js";
import type { MemoryState } from "../graph/state/state.js";
import { ValidTurn } from "../graph/state/turn-input.js";
import { skippedTurn, turnResultOf, type TurnResult } from "../graph/state/turn-result.js";
import type { Persistence } from "./backends.js";
import type { DependencyHealth } from "../resilience/dependency-health.js";
import { newTurnOutcome, withTurnOutcome } from "../resilience/guarded-storage.js";
import type { sessionlessTurns, TurnConfig } from "../resilience/degraded-mode.js";
import { titleSession } from "./session-titles.js";
import { asGraphInput, streamGraphTurn } from "./stream-turn.js";
import { tracedTurn } from "./turn-telemetry.js";
import { upkeepOf } from "./upkeep.js";

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

/** Checkpoints a session may gather beyond `checkpointKeep` before a turn prunes it back. */
export const PRUNE_SLACK = 10;

/** What the turn runner works with, made by `createMemoryGraph`. */
export interface TurnRunnerParts {
  app: MemoryGraphApp;
  persistence: Persistence;
  health: DependencyHealth;
  sessionless: ReturnType<typeof sessionlessTurns>;
  deps: GraphDeps;
  checkpointKeep: number;
  /** The model that titles sessions, or null when sessions are not titled. */
  titleModel: BaseChatModel | null;
  /** Runs `work` with the graph's own logger, when it has one. */
  scoped: <T>(work: () => T) => T;
  refuseWhenClosed: () => void;
}

/** How a turn runs the graph once it is planned: invoked, or streamed to a token handler. */
type RunGraph = (graph: MemoryGraphApp, plan: { plan: unknown }, config: TurnConfig & { signal?: AbortSignal }) => Promise<MemoryState>;

/**
 * Runs turns: each validated once (storing nothing when the input is bad), answered SKIP without a
 * prompt, then — one writer per thread — planned (`planTurn`: a repeated `messageId` replays or
 * conflicts, the parent is checked), run to build_candidate with the plan as the graph's one input,
 * recorded under its idempotency key and handed to the caller; then, the session still locked, the
 * due summary made and old checkpoints pruned. No reply waits for upkeep; `settled()` does.
 */
export function createTurnRunner(parts: TurnRunnerParts) {
  const { app, persistence, health, sessionless, deps, scoped } = parts;
  /** Turns whose reply is out but whose upkeep (a due summary, pruning) still runs. */
  const upkeep = new Set<Promise<void>>();
  const settled = async () => {
    while (upkeep.size > 0) await Promise.all(upkeep);
  };
  const { makeDueSummary, finishUpkeep } = upkeepOf(app);
  const stateOf = async (threadId: string): Promise<MemoryState | null> => {
    const snapshot = await app.getState({ configurable: { thread_id: threadId } });
    return snapshot.createdAt ? (snapshot.values as MemoryState) : null;
  };

  /** The locked part of a turn: `answer` hands the result over; what follows it is upkeep. */
  async function locked(turn: ValidTurn, threadId: string, options: TurnOptions, runGraph: RunGraph, answer: (result: TurnResult) => void): Promise<void> {
    const { input } = turn;
    const outcome = newTurnOutcome();
    await withTurnOutcome(outcome, async () => {
      // A turn checkpoints where it stops, once: a failed turn leaves the session as it was.
      // Without the session store it runs on a session rebuilt from long-term memory.
      const session = sessionless.begin(threadId, { tenantId: input.tenantId, userId: input.userId, sessionId: input.sessionId }, outcome, () => stateOf(threadId));
      const planned = await planTurn(persistence.store, turn, session.lastState);
      options.onStart?.({ replayed: planned.kind === "replay" });
      if (planned.kind === "replay") return answer(planned.result);
      const state = await session.run(app, (graph, config) => runGraph(graph, { plan: planned.plan }, { ...config, signal: options.signal }));
      const result: TurnResult = { ...turnResultOf(state), degraded: session.degraded() };
      // A turn that ended in ERROR is not a result to replay: a retry answers its message again.
      // An incognito turn leaves nothing in long-term memory, not even its result.
      if (planned.key !== null && result.status !== "ERROR" && input.remember !== false) {
        const request = { text: turn.text, parentMessageId: input.parentMessageId ?? null };
        await saveTurnRecord(persistence.store, input, { key: planned.key, ...request, result, createdAt: deps.now().toISOString() });
      }
      answer(result);
      // Upkeep works on the checkpoint: a turn that ran without one leaves it to a later turn.
      if (result.degraded.length > 0) return;
      if (parts.titleModel && result.status === "OK" && result.candidate && input.remember !== false) {
        await titleSession(persistence.store, parts.titleModel, input, { user: state.turn?.text ?? "", reply: result.candidate.text });
      }
      if (summaryDue(state, deps.limits.summaryInterval)) await makeDueSummary(session.config);
      if (persistence.gc) await persistence.gc.pruneThread(threadId, parts.checkpointKeep, PRUNE_SLACK);
    });
  }

  /** One turn: the result once it is answered; its upkeep goes on under the lock after that. */
  async function turn(raw: unknown, options: TurnOptions, runGraph: RunGraph): Promise<TurnResult> {
    parts.refuseWhenClosed();
    const valid = raw instanceof ValidTurn ? raw : ValidTurn.parse(raw, deps.limits.maxPromptChars);
    if (!valid.text && !valid.input.parentMessageId) return skippedTurn();
    const threadId = options.threadId ?? threadIdOf(valid.input);
    return await new Promise<TurnResult>((resolve, reject) => {
      let answered = false;
      const answer = (result: TurnResult) => {
        answered = true;
        resolve(result);
      };
      const work = scoped(() => persistence.turnLock.run(threadId, () => locked(valid, threadId, options, runGraph, answer)));
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
    stateOf,
    settled,
    finishUpkeep,
    runTurn: (raw: unknown, options: TurnOptions = {}) => tracedTurn(raw, undefined, () => turn(raw, options, (graph, input, config) => graph.invoke(asGraphInput(input), config))),
    streamTurn: (raw: unknown, tokenHandler: (text: string) => void, options: TurnOptions = {}) =>
      tracedTurn(raw, tokenHandler, (timed) => replayTokens(timed ?? tokenHandler, turn(raw, options, streamGraphTurn(timed ?? tokenHandler)))),
  };
}

/** A replayed turn ran no model: its caller's token handler gets the stored reply in one piece. */
async function replayTokens(onToken: (text: string) => void, result: Promise<TurnResult>): Promise<TurnResult> {
  const done = await result;
  if (done.replayed && done.candidate) onToken(done.candidate.text);
  return done;
}
