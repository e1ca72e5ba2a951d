import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { StreamMode } from "@langchain/langgraph";
import { MemoryGraphError, messageOf } from "../errors.js";
import { log } from "../logger.js";
import type { MemoryGraphApp } from "../graph/build-graph.js";
import { threadIdOf, userKeyOf } from "../memory/scope.js";
import { saveTurnRecord } from "../memory/turn-records.js";
import { classifierOf, type GraphDeps } from "../graph/nodes/deps.js";
import { planTurn } from "../graph/nodes/turn.js";
import type { WindowLimits } from "../graph/reducers.js";
import { NODE } from "../graph/state/node-names.js";
import { withUpdate, type MemoryState, type MemoryUpdate } from "../graph/state/state.js";
import { ValidTurn, type TurnInput } from "../graph/state/turn-input.js";
import { REPLY_TOKEN } from "../graph/nodes/call-model.js";
import { buildCandidate, skippedTurn, turnResultOf, type TurnResult } from "../graph/nodes/build-candidate.js";
import type { Persistence } from "./backends.js";
import type { DependencyHealth } from "../resilience/dependency-health.js";
import { newTurnOutcome, withTurnOutcome, type sessionlessTurns, type TurnConfig } from "../resilience/guarded-storage.js";
import { withUsageSink } from "../models/usage-sink.js";
import { countLateTokens, tracedTurn, turnUsageSink, withCalls } from "./turn-telemetry.js";
import { upkeepOf } from "./upkeep.js";
import { LateWrites } from "../memory/late-writes.js";

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

/** How a turn runs the graph once it is planned: invoked, or streamed to a token handler; `onReply` as `RunListeners` says. */
type RunGraph = (graph: MemoryGraphApp, plan: { plan: unknown }, config: TurnConfig & { signal?: AbortSignal }, onReply: (state: MemoryState) => void) => Promise<MemoryState>;

/**
 * Runs turns: each validated once (storing nothing when the input is bad), answered SKIP without a
 * prompt, then — one writer per thread — planned (`planTurn`: a repeated `messageId` replays or
 * conflicts, the parent is checked) and run to build_candidate with the plan as the graph's one
 * input. The result is handed over as soon as the reply is made: when a model classifies, the
 * result does not wait for it (its `event` is what the classification had finished by then, else
 * null). The session stays locked until the run is done (the classification stored, the turn's
 * result recorded under its idempotency key, the checkpoint written, old ones pruned), so the next
 * turn of the session starts with what this one learnt. The due summary and the session's title
 * are made after that, off the lock (see `upkeepOf`). `settled()` waits for all of it. From before
 * the session's lock until the upkeep is done, the turn holds its user's lock shared, so forgetting
 * the user (on any instance) waits for all of it and the turn's every write is among what it deletes.
 */
export function createTurnRunner(parts: TurnRunnerParts) {
  const { app, persistence, health, deps, scoped } = parts;
  /** Turns whose reply is out but whose upkeep (the rest of the run, a due summary, a title) still runs. */
  const upkeep = new Set<Promise<void>>();
  const settled = async () => {
    while (upkeep.size > 0) await Promise.all(upkeep);
  };
  const stateOf = async (threadId: string): Promise<MemoryState | null> => {
    const snapshot = await app.getState({ configurable: { thread_id: threadId } });
    return snapshot.createdAt ? (snapshot.values as MemoryState) : null;
  };
  const upkeepParts = upkeepOf({ app, store: persistence.store, turnLock: persistence.turnLock, deps, stateOf, titleModel: parts.titleModel });
  const lockedParts = { ...parts, stateOf };
  // With a model classifying, the reply does not wait for it (a local classification costs nothing to wait for).
  const answerOnReply = classifierOf(deps) !== null;

  /** One turn: the result once it is answered; the rest of its run and its upkeep go on after that. */
  async function turn(raw: unknown, options: TurnOptions, runGraph: RunGraph): Promise<TurnResult> {
    parts.refuseWhenClosed();
    const valid = raw instanceof ValidTurn ? raw : ValidTurn.parse(raw, deps.limits.maxPromptChars);
    if (!valid.text && !valid.input.parentMessageId) return skippedTurn();
    const threadId = options.threadId ?? threadIdOf(valid.scope);
    // The embeddings the turn's writes compute are the turn's (see `turnUsageSink`).
    const usage = turnUsageSink(valid.scope.tenantId);
    // What the turn writes after its answer (the reply's vector: `saveAnswer`), awaited before the turn lets go of its user.
    const later = new LateWrites();
    return await new Promise<TurnResult>((resolve, reject) => {
      let answered = false;
      const answer = (result: TurnResult) => {
        answered = true;
        resolve(result);
      };
      // The user's lock, shared with the user's other turns, is held from before the session's lock until
      // the upkeep is done: forgetting the user, which holds it alone, comes before or after all of the turn.
      const done = withUsageSink(usage.add, () =>
        scoped(() =>
          persistence.userLock.shared(userKeyOf(valid.scope), async () => {
            try {
              const state = await persistence.turnLock.run(threadId, () => lockedTurn(lockedParts, valid, threadId, { ...options, runGraph, answer, usage, later }));
              if (state) await scoped(() => upkeepParts.afterTurn(threadId, valid.input, state));
            } finally {
              await later.settled();
            }
          }),
        ),
      ).catch((error: unknown) => {
        usage.end();
        if (!answered) {
          if (error instanceof MemoryGraphError && error.dependency) health.countRefused(error.dependency);
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the turn's own error, passed on as thrown
          return reject(error);
        }
        // The reply is out: what failed after it (the rest of the run, a summary) is logged; a summary left due is made by a later turn.
        scoped(() => (error instanceof MemoryGraphError && error.dependency ? log.warn : log.error)("turn.upkeep_failed", { error: messageOf(error) }));
      });
      upkeep.add(done);
      void done.finally(() => upkeep.delete(done));
    });
  }

  const run =
    (onToken?: (text: string) => void): RunGraph =>
    (graph, input, config, onReply) => {
      // What call_model is told: to stream the reply's tokens, and whether its reply is the turn's answer
      // (it then stores the reply with a mark that keeps the answered turn on the thread: `saveAnswer`).
      const configurable = { ...config.configurable, ...(onToken ? { streamReply: true } : {}), ...(answerOnReply ? { answerOnReply } : {}) };
      return runGraphTurn(graph, input, { ...config, configurable }, { onToken, onReply: answerOnReply ? onReply : undefined }, deps.limits.window);
    };
  return {
    stateOf,
    settled,
    finishUpkeep: upkeepParts.finishUpkeep,
    runTurn: (raw: unknown, options: TurnOptions = {}) => tracedTurn(tenantOf(raw), undefined, () => turn(raw, options, run())),
    streamTurn: (raw: unknown, tokenHandler: (text: string) => void, options: TurnOptions = {}) =>
      tracedTurn(tenantOf(raw), tokenHandler, (timed) => replayTokens(timed ?? tokenHandler, turn(raw, options, run(timed ?? tokenHandler)))),
  };
}

/**
 * The locked part of a turn: `answer` hands the result over — from `onReply` as soon as a reply
 * is made when the classification is a model's (the result does not wait for it: its `event`,
 * `intent` and the classification's errors and usage are what had finished by then; the stored
 * result, which a retry replays, has them all), else at the end. Returns the state the run ended in when
 * upkeep may follow, else null.
 */
async function lockedTurn(
  parts: TurnRunnerParts & { stateOf: (threadId: string) => Promise<MemoryState | null> },
  turn: ValidTurn,
  threadId: string,
  options: TurnOptions & { runGraph: RunGraph; answer: (result: TurnResult) => void; usage: ReturnType<typeof turnUsageSink>; later: LateWrites },
): Promise<MemoryState | null> {
  const { persistence, sessionless, deps } = parts;
  const { input } = turn;
  const { answer, usage, later } = options;
  const outcome = newTurnOutcome();
  return await withTurnOutcome(outcome, async () => {
    // A turn checkpoints where it stops, once: a failed turn leaves the session as it was.
    // Without the session store it runs on a session rebuilt from long-term memory.
    const session = sessionless.begin(threadId, turn.scope, outcome, () => parts.stateOf(threadId));
    const planned = await planTurn(persistence.store, turn, session.lastState);
    options.onStart?.({ replayed: planned.kind === "replay" });
    if (planned.kind === "replay") {
      usage.end();
      answer(planned.result);
      return null;
    }
    let early: TurnResult | null = null;
    const onReply = (state: MemoryState) => {
      // A reply that failed (status ERROR) is answered with everything the turn recorded, at the end.
      if (state.status === "OK") answer((early = { ...withCalls(turnResultOf(withUpdate(state, buildCandidate(state))), usage.take()), degraded: session.degraded() }));
    };
    const withLater = (config: TurnConfig): TurnConfig => ({ ...config, configurable: { ...config.configurable, lateWrites: later } });
    const state = await session.run(parts.app, (graph, config) => options.runGraph(graph, { plan: planned.plan }, { ...withLater(config), signal: options.signal }, onReply));
    // A result already handed over: the stored one (a retry's replay) waits for the reply's vector and counts its embedding.
    if (early) await later.settled();
    const result: TurnResult = { ...withCalls(turnResultOf(state), usage.take()), degraded: session.degraded() };
    usage.end();
    // A turn that ended in ERROR is not a result to replay: a retry answers its message again.
    // An incognito turn leaves nothing in long-term memory, not even its result.
    if (planned.key !== null && result.status !== "ERROR" && input.remember !== false) {
      const request = { text: turn.text, parentMessageId: input.parentMessageId ?? null };
      await saveTurnRecord(persistence.store, input, { key: planned.key, ...request, result, createdAt: deps.now().toISOString() });
    }
    if (early) countLateTokens(input.tenantId, early, result);
    answer(result);
    // Upkeep works on the checkpoint: a turn that ran without one leaves it to a later turn.
    if (result.degraded.length > 0) return null;
    if (persistence.gc) await persistence.gc.pruneThread(threadId, parts.checkpointKeep, PRUNE_SLACK);
    return state;
  });
}

/** The tenant a turn is for, as far as its input says before it is validated (for its span and metrics). */
function tenantOf(raw: unknown): string {
  const tenant = (raw instanceof ValidTurn ? raw.scope : (raw as { tenantId?: unknown } | null))?.tenantId;
  return typeof tenant === "string" ? tenant : "";
}

/** A replayed turn ran no model: its caller's token handler gets the stored reply in one piece. */
async function replayTokens(onToken: (text: string) => void, result: Promise<TurnResult>): Promise<TurnResult> {
  const done = await result;
  if (done.replayed && done.candidate) onToken(done.candidate.text);
  return done;
}

type RunConfig = TurnConfig & { signal?: AbortSignal };

/**
 * The facade's graph takes a planned turn, `{ plan }`, as its one input (see `buildGraph`); its
 * compiled type keeps the input schema of the graph alone, which is what callers of `app` send.
 */
const asGraphInput = (input: { plan: unknown }) => input as unknown as TurnInput;

/** What a run of a turn tells its caller before it ends. */
interface RunListeners {
  /** Each piece of call_model's reply as it is produced (the whole reply at once when the model does not stream). */
  onToken?: (text: string) => void;
  /**
   * The state once call_model is done, as its step will leave it — with whatever else of that step
   * (classify_event) finished before it — so the reply need not wait for the rest of the step.
   */
  onReply?: (state: MemoryState) => void;
}

/** Runs the planned turn to its end like `graph.invoke`, returning the state it ended in, and tells `listeners` on the way. */
async function runGraphTurn(graph: MemoryGraphApp, input: { plan: unknown }, config: RunConfig, listeners: RunListeners, limits: WindowLimits): Promise<MemoryState> {
  const { onToken, onReply } = listeners;
  const modes: StreamMode[] = ["values", ...(onReply ? (["updates"] as const) : []), ...(onToken ? (["custom"] as const) : [])];
  const stream = await graph.stream(asGraphInput(input), { ...config, streamMode: modes });
  let final: MemoryState | null = null;
  // The last step's state with the updates of this step's finished nodes applied.
  let stepState: MemoryState | null = null;
  for await (const [mode, payload] of stream as AsyncIterable<[StreamMode, unknown]>) {
    if (mode === "values") {
      final = stepState = payload as MemoryState;
    } else if (mode === "updates") {
      for (const [node, update] of Object.entries(payload as Record<string, MemoryUpdate | undefined>)) {
        if (!update || !stepState) continue;
        stepState = withUpdate(stepState, update, limits);
        if (node === NODE.callModel) onReply?.(stepState);
      }
    } else {
      // call_model's reply, piece by piece (`streamReply`); nothing else of the graph writes to this stream.
      const piece = (payload as Record<string, unknown> | null)?.[REPLY_TOKEN];
      if (typeof piece === "string" && piece) onToken?.(piece);
    }
  }
  if (!final) throw new MemoryGraphError("STREAM_EMPTY", "the graph produced no state", { kind: "system" });
  return final;
}
