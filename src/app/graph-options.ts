import { randomUUID } from "node:crypto";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph";
import type { ZodObject } from "zod";
import type { LoggerOption } from "../logger.js";
import type { GcTarget } from "../memory/gc.js";
import { resolveLimits, type LimitsInput } from "../memory/limits.js";
import { profileOf } from "../memory/profile.js";
import { createChatModel, type ChatModelSettings } from "../models/chat-model.js";
import { createEmbeddings } from "../models/embeddings.js";
import type { GraphDeps, MemoryMode } from "../graph/nodes/deps.js";
import type { ClassifyPolicy } from "../rules/classify-gate.js";
import type { BackendKind } from "./backends.js";
import { DEFAULT_EMBEDDINGS_MODEL, DEFAULT_MODEL_TIMEOUT_MS, DEFAULT_SYSTEM_PROMPT } from "./defaults.js";
import type { TurnLock, UserLock } from "../memory/ports/persistence.js";
import type { RecallCacheBounds } from "../storage/shared/sized-lru.js";

/** The options of `createMemoryGraph`: where memory lives, the models, limits and defaults. */
export interface MemoryGraphOptions {
  /** Where memory lives: `sqlite` (default, one file) or `memory` (tests). */
  backend?: BackendKind;
  sqlitePath?: string;
  /**
   * Bring your own persistence instead of a backend (turns are then serialised, and kept from
   * forgetting their user, in-process unless `turnLock` and `userLock` are given). Give
   * `dropSessionHistory` too (an engine's `open` does) so that a correction drops a session's older
   * checkpoints, which still hold what it took out; without it they are left as they are.
   */
  persistence?: {
    checkpointer: BaseCheckpointSaver;
    store: BaseStore;
    turnLock?: TurnLock;
    userLock?: UserLock;
    gc?: GcTarget;
    dropSessionHistory?: (threadId: string) => Promise<number>;
  };
  /** Postgres connection string (postgres backend; redis backend's long-term store). */
  databaseUrl?: string;
  /** Redis URL (redis backend). */
  redisUrl?: string;
  /**
   * Bounds of the opened backend's in-process recall index cache: `maxCachedBytes` by the indexes'
   * own estimate (default 128 MiB), `maxRss` the process RSS past which it gives memory back (default
   * none). The service sets them from RECALL_CACHE_MB and RECALL_CACHE_MAX_RSS_MB.
   */
  recallCache?: RecallCacheBounds;
  /** The answering model. `null` runs offline; omitted, one is made from `openai` when configured. */
  chatModel?: BaseChatModel | null;
  classifierModel?: BaseChatModel | null;
  /**
   * When the classifier model is asked about a message. `auto` (default): every message is
   * classified locally, and the model is asked only about one that may hold something to remember
   * the rules cannot settle (a first-person statement, a name, an amount, a date, a correction, a
   * preference; not "thanks!", a greeting or a question); `model`: every message; `rules`: never.
   * Each turn's `event` says which way it went and why (`classifiedBy`, `classifyReason`).
   */
  classify?: ClassifyPolicy;
  summaryModel?: BaseChatModel | null;
  /**
   * Titles each session with the summary model after its first answered turn (one extra call per
   * session; `listSessions` shows it). Default false: a session is listed under its first user message.
   */
  sessionTitles?: boolean;
  /**
   * The fact keys this deployment cares about, as a zod object or a JSON Schema object (one
   * property per key): extraction is asked for exactly these, values are checked against the
   * schema, and the prompt shows them as one "User profile" block. Default: every key, as found.
   */
  profile?: ZodObject | Record<string, unknown>;
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
   * How long one storage call may take (default 1500 ms) before its storage counts as down: the
   * turn then runs without the session store, or is refused (`MEMORY_STORE_UNAVAILABLE`, naming
   * the `dependency`) without the long-term store. See the README's "When storage goes down".
   */
  storageTimeoutMs?: number;
  /**
   * Where this graph's log events go: a logger (pino, bunyan, `console`, or any
   * `{ debug, info, warn, error }(fields, event)`), a level of our JSON lines on stdout, or `false`
   * for none. Default: the process-wide logger (JSON at `setLogLevel`'s level, or `setLogger`'s).
   */
  logger?: LoggerOption;
}

/**
 * What the nodes get from the options: the models (an OpenAI-compatible one from `openai` when no
 * chat model is given; nodes do the retrying, so its client does not), limits and defaults.
 */
export function graphDepsOf(options: MemoryGraphOptions): GraphDeps {
  return {
    chatModel: options.chatModel !== undefined ? options.chatModel : options.openai ? createChatModel({ maxRetries: 0, ...options.openai }) : null,
    classifierModel: options.classifierModel,
    classify: options.classify ?? "auto",
    summaryModel: options.summaryModel,
    modelName: options.modelName ?? (options.chatModel === undefined && options.openai ? options.openai.model : "custom"),
    embeddings: embeddingsOf(options),
    limits: resolveLimits(options.limits),
    ...(options.profile ? { profile: profileOf(options.profile) } : {}),
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
