import type { AIMessage } from "@langchain/core/messages";

/** Tokens one model call of a turn used, as its provider reported them. */
export interface ModelUsage {
  node: string;
  inputTokens: number;
  outputTokens: number;
}

/** The usage a provider reported on a reply (`usage_metadata`), or none when it reported nothing. */
export function usageOfReply(node: string, reply: Pick<AIMessage, "usage_metadata"> | undefined): ModelUsage[] {
  const usage = reply?.usage_metadata;
  if (!usage) return [];
  return [{ node, inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0 }];
}
