import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { isTransientError, withRetry } from "../models/chat-model.js";
import type { ClassifiedEvent, ClassifyContext } from "../models/event-schema.js";
import { classifyWithModel } from "../models/structured.js";
import { usageOfReply, type ModelUsage } from "../models/usage.js";
import { NODE } from "../state/node-names.js";
import type { MemoryState } from "../state/state.js";
import { retryOptions, type GraphDeps } from "./deps.js";
import { turnOf } from "./turn.js";

/** A model classification under way: its answer (or the error that sends classify_event to its fallback), and what its calls used so far. */
export interface Classification {
  result: Promise<ClassifiedEvent>;
  usage: ModelUsage[];
}

/** How long a classification started for a run that never reached classify_event (an aborted run) is kept. */
const UNCLAIMED_MS = 60_000;

/** What the classifier reads of the session: the last intent and the entities still active. */
export function classifyContextOf(state: MemoryState): ClassifyContext {
  return { lastIntent: state.session.lastIntent ?? undefined, activeEntities: state.session.activeEntities };
}

/**
 * The model classifications of one compiled graph. A classification needs only the new message and
 * the session's context, both known once ingest_prompt is done, so `start` begins it as recall
 * begins: its model call overlaps recall instead of following it, while classify_event (after
 * recall, beside call_model) still makes everything of it that the turn keeps. classify_event
 * `take`s the one started for its turn — the same thread, turn, message and context — or starts
 * one itself (a run resumed at classify_event, or a graph run without this head start). A started
 * call is traced under recall, where it began.
 */
export class Classifications {
  readonly #model: BaseChatModel | null;
  readonly #deps: Pick<GraphDeps, "retry">;
  readonly #started = new Map<string, Classification>();

  constructor(deps: Pick<GraphDeps, "chatModel" | "classifierModel" | "retry">) {
    this.#model = deps.classifierModel === undefined ? deps.chatModel : deps.classifierModel;
    this.#deps = deps;
  }

  /** False when no model classifies (classify_event takes the keyword classifier). */
  get hasModel(): boolean {
    return this.#model !== null;
  }

  /** Starts the turn's classification ahead of classify_event; does nothing without a model or a turn. */
  start(state: MemoryState, config: LangGraphRunnableConfig): void {
    if (!this.#model || !state.turn) return;
    const key = keyOf(state, config);
    const classification = this.#classify(this.#model, state);
    this.#started.set(key, classification);
    // A run that stops before classify_event (aborted) leaves it unclaimed; its failure is seen by whoever takes it.
    const forgetUnclaimed = () => {
      const unclaimed = () => this.#started.get(key) === classification;
      if (unclaimed()) setTimeout(() => unclaimed() && this.#started.delete(key), UNCLAIMED_MS).unref();
    };
    classification.result.then(forgetUnclaimed, forgetUnclaimed);
  }

  /** The classification started for this turn, or a new one; null without a model. */
  take(state: MemoryState, config: LangGraphRunnableConfig): Classification | null {
    if (!this.#model) return null;
    const key = keyOf(state, config);
    const started = this.#started.get(key);
    this.#started.delete(key);
    return started ?? this.#classify(this.#model, state);
  }

  #classify(model: BaseChatModel, state: MemoryState): Classification {
    const usage: ModelUsage[] = [];
    const onUsage = (reply: Parameters<typeof usageOfReply>[1]) => usage.push(...usageOfReply(NODE.classifyEvent, reply));
    const result = withRetry(() => classifyWithModel(model, turnOf(state).text, classifyContextOf(state), onUsage), {
      ...retryOptions(this.#deps),
      isRetryable: isTransientError,
    });
    return { result, usage };
  }
}

/** What a classification depends on, in the run it belongs to. */
function keyOf(state: MemoryState, config: LangGraphRunnableConfig): string {
  const turn = turnOf(state);
  return JSON.stringify([config.configurable?.thread_id ?? null, turn.id, turn.text, classifyContextOf(state)]);
}
