export { detectAttributeUpdates, type AttributeUpdate } from "./attribute-detect.js";
export {
  createChatModel,
  isTransientError,
  withRetry,
  type ChatModelSettings,
  type RetryOptions,
} from "./chat-model.js";
export {
  EVENT_TYPES,
  classifiedEventSchema,
  type ClassifiedEvent,
  type ClassifyContext,
  type EventEntity,
  type EventType,
} from "./event-schema.js";
export { createEmbeddings, type EmbeddingsSettings } from "./embeddings.js";
export { classifyByKeywords } from "./keyword-classifier.js";
export { offlineReply, type KnownFact, type RecalledForReply } from "./offline-responder.js";
export { summarizeByRules, type RuleSummary, type SummaryMessage, type SummaryOptions } from "./rule-summarizer.js";
export { classifyWithModel, summarizeWithModel } from "./structured.js";
export { detectLanguage } from "./text-signals.js";
export { clip } from "../memory/clip.js";
