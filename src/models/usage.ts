import type { AIMessage } from "@langchain/core/messages";

/** Tokens one model call of a turn used, as its provider reported them. */
export interface ModelUsage {
  /** What made the call: a graph node (`call_model`, `classify_event`, `summarize`) or one of `CALL`. */
  node: string;
  inputTokens: number;
  outputTokens: number;
}

/** The names of model calls made outside the graph's nodes, in usage and in the token metric's `node`. */
export const CALL = {
  /** An embeddings call: a message's vector (recall's query, a stored message, fact or summary), a search's query. */
  embeddings: "embeddings",
  /** A session's title, made after its first answered turn. */
  sessionTitle: "session_title",
} as const;

/** The usage a provider reported on a reply (`usage_metadata`), or none when it reported nothing. */
export function usageOfReply(node: string, reply: Pick<AIMessage, "usage_metadata"> | undefined): ModelUsage[] {
  const usage = reply?.usage_metadata;
  if (!usage) return [];
  return [{ node, inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 }];
}
