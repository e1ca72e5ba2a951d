/**
 * Bounds of the session window. All three count every kept message, pinned ones included:
 * `maxMessages` messages, `maxChars` characters of text (see `textOf`), and, when set,
 * `maxTokens` estimated tokens (see `estimateTokens` in tokens.ts).
 */
export interface WindowLimits {
  maxMessages: number;
  maxChars: number;
  maxTokens?: number;
}

/** 20 messages and 8,000 characters; no token limit. */
export const DEFAULT_WINDOW_LIMITS: WindowLimits = Object.freeze({ maxMessages: 20, maxChars: 8000 });
