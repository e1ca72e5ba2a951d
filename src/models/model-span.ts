import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { inSpan } from "../telemetry.js";
import type { ModelUsage } from "./usage.js";

/** The model's name as its provider knows it (ChatOpenAI's `model`), else `fallback`. */
export function modelNameOf(model: BaseChatModel, fallback: string): string {
  const name = (model as { model?: unknown }).model;
  return typeof name === "string" && name ? name : fallback;
}

/**
 * One model call (its retries included) as a span `chat <model>` with the GenAI attributes:
 * the model's name and, once it answered, the tokens `usage` reports. Off: `call()`.
 */
export function inModelSpan<T>(node: string, model: string, call: () => Promise<T>, usage: (result: T) => readonly ModelUsage[]): Promise<T> {
  return inSpan(`chat ${model}`, { "gen_ai.operation.name": "chat", "gen_ai.request.model": model, "memory_graph.node": node }, async (span) => {
    const result = await call();
    if (span) {
      const calls = usage(result);
      span.setAttributes({
        "gen_ai.usage.input_tokens": calls.reduce((sum, c) => sum + c.inputTokens, 0),
        "gen_ai.usage.output_tokens": calls.reduce((sum, c) => sum + c.outputTokens, 0),
      });
    }
    return result;
  });
}
