import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { MemoryLimits } from "../../memory/limits.js";
import type { Profile } from "../../memory/profile.js";
import type { ClassifyPolicy } from "../../rules/classify-gate.js";

export type MemoryMode = "conversation" | "node";

/** What the nodes need, given by `buildGraph(deps)`; the store comes from the run's config. */
export interface GraphDeps {
  /** The model that answers; null runs the offline responder. */
  chatModel: BaseChatModel | null;
  /** The model that classifies events (default: chatModel). */
  classifierModel?: BaseChatModel | null;
  /** When classify_event asks that model (default `auto`; see `ClassifyPolicy`). */
  classify?: ClassifyPolicy;
  /** The model that writes summaries (default: chatModel). */
  summaryModel?: BaseChatModel | null;
  /** The name reported on candidates for the chat model. */
  modelName: string;
  embeddings?: EmbeddingsInterface;
  limits: MemoryLimits;
  memoryMode: MemoryMode;
  systemPrompt: string;
  /** Retries of transient model errors, with exponential backoff from `baseDelayMs`. */
  retry: { retries: number; baseDelayMs: number };
  now: () => Date;
  newId: () => string;
  /** The deployment's profile: the fact keys extraction keeps, shown as one block (default: every key). */
  profile?: Profile;
}

/** The retry settings model calls use (transient errors only; see `isTransientError`). */
export function retryOptions(deps: Pick<GraphDeps, "retry">) {
  return { retries: deps.retry.retries, baseDelayMs: deps.retry.baseDelayMs };
}

/**
 * The model that classifies messages (`classifierModel`, else the chat model); null: the keyword
 * classifier alone (no model, or the `rules` policy).
 */
export function classifierOf(deps: Pick<GraphDeps, "chatModel" | "classifierModel" | "classify">): BaseChatModel | null {
  if (deps.classify === "rules") return null;
  return deps.classifierModel === undefined ? deps.chatModel : deps.classifierModel;
}

/** The model that writes summaries and session titles (`summaryModel`, else the chat model); null: the rule summarizer. */
export function summarizerOf(deps: Pick<GraphDeps, "chatModel" | "summaryModel">): BaseChatModel | null {
  return deps.summaryModel === undefined ? deps.chatModel : deps.summaryModel;
}
