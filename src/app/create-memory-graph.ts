import { randomUUID } from "node:crypto";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import { AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph";
import { MemoryGraphError, messageOf } from "../errors.js";
import { log, resolveLogger, withLogger, type LoggerOption } from "../logger.js";
import { compileGraph, type MemoryGraphApp } from "../graph/build-graph.js";
import { forgetSession, forgetUser, type ForgetCounts, type SessionForgetCounts } from "../memory/forget.js";
import { DEFAULT_CHECKPOINT_KEEP, type GcTarget } from "../memory/gc.js";
import { resolveLimits, type LimitsInput, type MemoryLimits } from "../memory/limits.js";
import { threadIdOf, validateScope, type MemoryScope } from "../memory/scope.js";
import { createChatModel, type ChatModelSettings } from "../models/chat-model.js";
import { createEmbeddings } from "../models/embeddings.js";
import type { GraphDeps, MemoryMode } from "../nodes/deps.js";
import { NODE } from "../state/node-names.js";
import type { MemoryState } from "../state/state.js";
import { parseTurnInput, promptText, type TurnInput } from "../state/turn-input.js";
import { skippedTurn, turnResultOf, usageOf, type TurnResult } from "../state/turn-result.js";
import { summaryDue } from "../nodes/summarize.js";
import { saveTurnRecord } from "../memory/turn-records.js";
import { openPersistence, type BackendKind, type Persistence } from "./backends.js";
import { DEFAULT_EMBEDDINGS_MODEL, DEFAULT_MODEL_TIMEOUT_MS, DEFAULT_SYSTEM_PROMPT } from "./defaults.js";
import { prepareTurn } from "./prepare-turn.js";
import { inProcessTurnLock, type TurnLock } from "./turn-lock.js";

export interface MemoryGraphOptions {
  /** Where memory lives: `sqlite` (default, one file) or `memory` (tests). */
  backend?: BackendKind;
  sqlitePath?: string;
  /** Bring your own persistence instead of a backend (turns are then serialised in-process). */
  persistence?: { checkpointer: BaseCheckpointSaver; store: BaseStore; turnLock?: TurnLock; gc?: GcTarget };
  /** Postgres connection string (postgres backend; redis backend's long-term store). */
  databaseUrl?: string;
  /** Redis URL (redis backend). */
  redisUrl?: string;
  /** The answering model. `null` runs offline; omitted, one is made from `openai` when configured. */
  chatModel?: BaseChatModel | null;
  classifierModel?: BaseChatModel | null;
  summaryModel?: BaseChatModel | null;
  /** OpenAI (or compatible) settings used when `chatModel` (or `embeddings`) is omitted. */
  openai?: ChatModelSettings & { embeddingsModel?: string };
  /** Name reported on candidates (default: the OpenAI model name, or "custom"). */
  modelName?: string;
  /**
   * Embeds stored messages and queries for recall's vector half. Default, as in the service: OpenAI
   * embeddings (`openai.embeddingsModel`, default text-embedding-3-small) when `openai` has a key or
   * base URL, else the local hashed n-gram embedder (no download, no key). `null`: lexical recall only.
   */
  embeddings?: EmbeddingsInterface | null;
  limits?: LimitsInput;
  memoryMode?: MemoryMode;
  systemPrompt?: string;
  retry?: { retries: number; baseDelayMs: number };
  /**
   * Checkpoints kept per session (default 20; never the newest). Older ones are pruned as turns
   * end, once `PRUNE_SLACK` more have gathered, so a session holds at most keep + 10 and storage
   * grows with the transcript, not with checkpoint history.
   */
  checkpointKeep?: number;
  now?: () => Date;
  newId?: () => string;
  /**
   * Where this graph's log events go: a logger (pino, bunyan, `console`, or any
   * `{ debug, info, warn, error }(fields, event)`), a level of our JSON lines on stdout, or `false`
   * for none. Default: the process-wide logger (JSON at `setLogLevel`'s level, or `setLogger`'s).
   */
  logger?: LoggerOption;
}

/** A compiled memory graph with its persistence, ready to take turns. */
export interface MemoryGraph {
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
  /** Forgets a user (every layer, every session) once the upkeep of answered turns has finished. */
  forgetUser(user: Pick<MemoryScope, "tenantId" | "userId">): Promise<ForgetCounts>;
  /** Forgets one session and what was learned in it, holding the session's turn lock (so after its upkeep). */
  forgetSession(scope: MemoryScope): Promise<SessionForgetCounts>;
  /** The checkpointed state of a session, or null when it has none; GRAPH_CLOSED once closed. */
  sessionState(scope: MemoryScope): Promise<MemoryState | null>;
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

/** The run config every turn shares: its thread, checkpointed once at the end. */
type TurnConfig = { configurable: { thread_id: string }; durability: "exit" };

/**
 * What the nodes get from the options: the models (an OpenAI-compatible one from `openai` when no
 * chat model is given; nodes do the retrying, so its client does not), limits and defaults.
 */
export function graphDepsOf(options: MemoryGraphOptions): GraphDeps {
  return {
    chatModel: options.chatModel !== undefined ? options.chatModel : options.openai ? createChatModel({ maxRetries: 0, ...options.openai }) : null,
    classifierModel: options.classifierModel,
    summaryModel: options.summaryModel,
    modelName: options.modelName ?? (options.chatModel === undefined && options.openai ? options.openai.model : "custom"),
    embeddings: embeddingsOf(options),
    limits: resolveLimits(options.limits),
    memoryMode: options.memoryMode ?? "conversation",
    systemPrompt: options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
    retry: options.retry ?? { retries: 2, baseDelayMs: 250 },
    now: options.now ?? (() => new Date()),
    newId: options.newId ?? randomUUID,
  };
}

/** The embeddings the options name, or the service's default (see `MemoryGraphOptions.embeddings`). */
function embeddingsOf(options: MemoryGraphOptions): EmbeddingsInterface | undefined {
  if (options.embeddings !== undefined) return options.embeddings ?? undefined;
  const openai = options.openai;
  return createEmbeddings({
    apiKey: openai?.apiKey,
    baseUrl: openai?.baseUrl,
    model: openai?.embeddingsModel ?? DEFAULT_EMBEDDINGS_MODEL,
    timeoutMs: openai?.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS,
  });
}

/** Builds the memory graph from options; close it when done. */
export async function createMemoryGraph(options: MemoryGraphOptions = {}): Promise<MemoryGraph> {
  const logger = options.logger === undefined ? undefined : resolveLogger(options.logger);
  // What the graph logs, in any call of it, goes to its own logger when it has one.
  const scoped = <T>(work: () => T): T => (logger ? withLogger(logger, work) : work());
  const deps = scoped(() => graphDepsOf(options));
  const limits = deps.limits;
  const persistence: Persistence = options.persistence
    ? { kind: "memory", turnLock: inProcessTurnLock(), gc: null, ...options.persistence, ping: async () => undefined, close: async () => undefined }
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
  const app = compileGraph(deps, persistence, { replyFirst: true });
  const checkpointKeep = options.checkpointKeep ?? DEFAULT_CHECKPOINT_KEEP;
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

  /** Resumes a run stopped after build_candidate: summarize makes the summary that is due. */
  async function makeDueSummary(config: TurnConfig): Promise<void> {
    const started = performance.now();
    const final = await app.invoke(null, config);
    const summary = final.usage.filter((call) => call.node === NODE.summarize);
    log.info("turn.upkeep", { summary_ms: Math.round(performance.now() - started), usage: usageOf(summary) });
  }

  /**
   * The frame of every turn: validate (storing nothing when the input is bad), answer SKIP for no
   * prompt, then — one writer per thread — plan it (a repeated `messageId` replays or conflicts),
   * run to build_candidate, record the result under its idempotency key and hand it to the caller;
   * then, the session still locked, make the summary when one is due and prune old checkpoints.
   * No reply waits for upkeep; `settled()` and `close()` do.
   */
  async function turn(raw: unknown, options: TurnOptions, run: (input: TurnInput, config: TurnConfig) => Promise<MemoryState>): Promise<TurnResult> {
    refuseWhenClosed();
    const input = parseTurnInput(raw, limits.maxPromptChars);
    if (!promptText(input) && !input.parentMessageId) return skippedTurn();
    const threadId = options.threadId ?? threadIdOf(input);
    // A turn checkpoints where it stops, once: a failed turn leaves the session as it was.
    const config: TurnConfig = { configurable: { thread_id: threadId }, durability: "exit" };
    return await new Promise<TurnResult>((resolve, reject) => {
      let answered = false;
      const answer = (result: TurnResult) => {
        answered = true;
        resolve(result);
      };
      const work = scoped(() =>
        persistence.turnLock.run(threadId, async () => {
          const plan = await prepareTurn(persistence.store, input, () => stateOf(threadId));
          options.onStart?.({ replayed: plan.kind === "replay" });
          if (plan.kind === "replay") return answer(plan.result);
          const state = await run(plan.input, config);
          const result = turnResultOf(state);
          // A turn that ended in ERROR is not a result to replay: a retry answers its message again.
          if (plan.key !== null && result.status !== "ERROR") {
            const request = { text: promptText(input), parentMessageId: input.parentMessageId ?? null };
            await saveTurnRecord(persistence.store, input, { key: plan.key, ...request, result, createdAt: deps.now().toISOString() });
          }
          answer(result);
          if (summaryDue(state, limits.summaryInterval)) await makeDueSummary(config);
          if (persistence.gc) await persistence.gc.pruneThread(threadId, checkpointKeep, PRUNE_SLACK);
        }),
      );
      const done = work.catch((error: unknown) => {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the turn's own error, passed on as thrown
        if (!answered) return reject(error);
        // The reply is out; the summary stays due and the session's next turn makes it.
        scoped(() => log.error("turn.upkeep_failed", { error: messageOf(error) }));
      });
      upkeep.add(done);
      void done.finally(() => upkeep.delete(done));
    });
  }

  return {
    app,
    persistence,
    limits,
    runTurn: (raw, runOptions = {}) => turn(raw, runOptions, (input, config) => app.invoke(input, { ...config, signal: runOptions.signal })),
    streamTurn: (raw, onToken, runOptions = {}) =>
      replayTokens(onToken, turn(raw, runOptions, async (input, config) => {
        const stream = await app.stream(input, { ...config, streamMode: ["messages", "values"], signal: runOptions.signal });
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
      })),
    sessionState: (scope) =>
      scoped(() => {
        refuseWhenClosed();
        return stateOf(threadIdOf(validateScope(scope)));
      }),
    settled,
    forgetUser: (user) =>
      scoped(async () => {
        refuseWhenClosed();
        await settled();
        return forgetUser(persistence, user);
      }),
    forgetSession: (scope) =>
      scoped(() => {
        refuseWhenClosed();
        return persistence.turnLock.run(threadIdOf(validateScope(scope)), () => forgetSession(persistence, scope));
      }),
    close: () =>
      scoped(async () => {
        closed = true;
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
