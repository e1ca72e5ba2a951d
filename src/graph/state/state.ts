import { Annotation, type OverwriteValue } from "@langchain/langgraph";
import { EphemeralValue } from "@langchain/langgraph/channels";
import type { BaseMessage } from "@langchain/core/messages";
import {
  addUsage,
  appendAndTrim,
  appendErrors,
  DEFAULT_WINDOW_LIMITS,
  lastValueReducer,
  mergeFields,
  mergeNodeMemory,
  type MessageUpdate,
  type NodeError,
  type NodeMemory,
  type NodeMemoryUpdate,
  type TrimReport,
  type WindowLimits,
} from "../reducers.js";
import type { RenderedContext } from "../../memory/context.js";
import type { MemoryNeedReason } from "../../memory/memory-plan.js";
import type { MemoryContext } from "../../memory/recall.js";
import type { EntityRef, EventRecord, TranscriptRecord } from "../../memory/records.js";
import type { MemoryScope } from "../../memory/scope.js";
import type { ModelUsage } from "../../models/usage.js";
import type { ClassifyPolicy } from "../../rules/classify-gate.js";
import { turnInputSchema, type TurnInput } from "./turn-input.js";

export type TurnStatus = "OK" | "SKIP" | "ERROR";

/** Session bookkeeping kept in the checkpointed state (short-term memory). */
export interface SessionInfo {
  lastActiveAt: string | null;
  /** The newest message of the current thread (the parent of the next one). */
  lastMessageId: string | null;
  lastIntent: string | null;
  activeEntities: EntityRef[];
  /** Successful user/assistant pairs since the last summary. */
  pairsSinceSummary: number;
  /** The newest message a summary already covers. */
  summarizedThroughId: string | null;
  /** How many windows expired by TTL and were rebuilt from long-term memory. */
  windowsRebuilt: number;
}

export const EMPTY_SESSION: SessionInfo = {
  lastActiveAt: null,
  lastMessageId: null,
  lastIntent: null,
  activeEntities: [],
  pairsSinceSummary: 0,
  summarizedThroughId: null,
  windowsRebuilt: 0,
};

/** What this turn is about, set by ingest_prompt and completed by the later nodes. */
export interface TurnInfo {
  /** The user message this turn answers. */
  messageId: string;
  text: string;
  startedAt: string;
  /** True when the turn re-answers an existing user message (a regeneration). */
  regenerated: boolean;
  /** This turn's own id (a regeneration re-answers a message id, so that cannot serve). */
  id: string;
  replyId: string | null;
  model: string | null;
  sessionExpired: boolean;
}

/** Whether this turn needed memory and what it used, as recall decided (see `memoryReason`). */
export interface MemoryUse {
  /** The message refers to what came before or is about the user (decided locally, no model). */
  needMemory: boolean;
  need: MemoryNeedReason;
  /** One sentence: what memory was used and why, or why none was. */
  reason: string;
}

/** The reply offered to the caller. */
export interface Candidate {
  id: string;
  kind: "text";
  status: "proposed";
  text: string;
  model: string;
  createdAt: string;
}

/** The classification of this turn's message, with which classifier decided, under which policy, and why. */
export type TurnEvent = Omit<EventRecord, "id" | "messageId" | "sessionId" | "createdAt"> & {
  attributeUpdates: { key: string; value: string }[];
  /** The classification policy the turn ran under (absent from results stored before policies). */
  classifyPolicy?: ClassifyPolicy;
  /** Why the message went to the model or stayed with the local classifier: a `ClassifyReason` (see `planClassification`; absent as `classifyPolicy`). */
  classifyReason?: string;
  saved: boolean;
  fallbackReason: string | null;
};

const lastValue = <T>(initial: T) => Annotation<T>({ reducer: lastValueReducer<T>, default: () => initial });

/**
 * A turn as planned under its session's lock, before the graph runs (see `planTurn`): its input,
 * its prompt text and its checked parent (null without `parentMessageId`). The facade's runs give
 * the graph this one value (the `plan` channel); a run of the graph alone plans in ingest_prompt.
 */
export interface PlannedTurn {
  input: TurnInput;
  text: string;
  parent: TranscriptRecord | null;
}

/** One channel per field of the run's input (the graph's input schema is `turnInputSchema`). */
export type RunInputChannels = { [K in keyof TurnInput]-?: () => EphemeralValue<TurnInput[K] | undefined> };

/**
 * The run's input fields hold their value for the first step only (ingest_prompt reads them and
 * writes the validated `input`), so nothing of one run's input, nor of a run that failed, is
 * left over for the next run on the thread.
 */
function runInputChannels(): RunInputChannels {
  const keys = Object.keys(turnInputSchema.shape) as (keyof TurnInput)[];
  return Object.fromEntries(keys.map((key) => [key, () => new EphemeralValue(false)])) as RunInputChannels;
}

/** The channels that merge an update into what they hold (the others hold their last value). */
function stateReducers(limits: WindowLimits) {
  return { messages: appendAndTrim(limits), nodeMessages: mergeNodeMemory(limits), session: mergeFields<SessionInfo>, errors: appendErrors, usage: addUsage };
}

/**
 * The graph state. `messages` and `nodeMessages` are kept within `limits` by pure trimming
 * reducers; `errors` only grows; the run's input fields last one step; everything else holds its
 * last value. A graph whose runs take a planned turn (`planned`: the facade's) has no run-input
 * channels: its input is `plan`. Every node reads every channel, and each empty one is an error
 * thrown and caught by LangGraph, so channels that are always empty cost each step of a turn.
 */
export function createStateAnnotation(limits: WindowLimits = DEFAULT_WINDOW_LIMITS, options: { planned?: boolean } = {}) {
  const reducers = stateReducers(limits);
  return Annotation.Root({
    ...(options.planned ? ({} as RunInputChannels) : runInputChannels()),
    /** The planned turn of a facade run (`plannedInputSchema`), for the first step only. */
    plan: () => new EphemeralValue<PlannedTurn | undefined>(false),
    /** This turn's input, as planned (or validated by ingest_prompt from the run's input fields). */
    input: lastValue<TurnInput | null>(null),
    /** Who this checkpoint thread belongs to, bound by its first turn; never changes after. */
    scope: lastValue<MemoryScope | null>(null),
    messages: Annotation<BaseMessage[], MessageUpdate>({ reducer: reducers.messages, default: () => [] }),
    nodeMessages: Annotation<NodeMemory, NodeMemoryUpdate>({ reducer: reducers.nodeMessages, default: () => ({}) }),
    trim: lastValue<TrimReport | null>(null),
    session: Annotation<SessionInfo, Partial<SessionInfo>>({
      reducer: reducers.session,
      default: () => EMPTY_SESSION,
    }),
    turn: lastValue<TurnInfo | null>(null),
    recalled: lastValue<MemoryContext | null>(null),
    memoryText: lastValue<RenderedContext | null>(null),
    memoryUse: lastValue<MemoryUse | null>(null),
    event: lastValue<TurnEvent | null>(null),
    candidate: lastValue<Candidate | null>(null),
    llmText: lastValue<string>(""),
    status: lastValue<TurnStatus>("OK"),
    errors: Annotation<NodeError[], NodeError | NodeError[]>({ reducer: reducers.errors, default: () => [] }),
    usage: Annotation<ModelUsage[], ModelUsage[] | null>({ reducer: reducers.usage, default: () => [] }),
  });
}

export const StateAnnotation = createStateAnnotation();
export type MemoryState = typeof StateAnnotation.State;

/**
 * What a node returns: for each channel it writes, the update that channel's reducer takes,
 * derived from the annotation (nodes never overwrite a channel past its reducer).
 */
export type MemoryUpdate = { [K in keyof typeof StateAnnotation.Update]?: Exclude<(typeof StateAnnotation.Update)[K], OverwriteValue<unknown>> };

/**
 * `state` with one node's `update` applied by the same reducers the graph applies: what the state
 * will hold once that node's step ends (for a result read before the other nodes of its step finish).
 */
export function withUpdate(state: MemoryState, update: MemoryUpdate, limits: WindowLimits = DEFAULT_WINDOW_LIMITS): MemoryState {
  const reducers: Record<string, (current: never, value: never) => unknown> = stateReducers(limits);
  const next: Record<string, unknown> = { ...state };
  for (const [key, value] of Object.entries(update)) {
    const reducer = reducers[key];
    next[key] = reducer ? reducer(next[key] as never, value as never) : value;
  }
  return next as MemoryState;
}
