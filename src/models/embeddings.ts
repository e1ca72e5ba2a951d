import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { OpenAIEmbeddings } from "@langchain/openai";
import { openAiModule } from "./openai-module.js";
import { reportUsage } from "./usage-sink.js";
import { CALL } from "./usage.js";

export interface EmbeddingsSettings {
  apiKey?: string;
  baseUrl?: string;
  model: string;
  timeoutMs: number;
}

/**
 * OpenAI embeddings (or any OpenAI-compatible server) when a key or base URL is configured;
 * otherwise none: recall then ranks lexically only. The local hashed n-gram embedder
 * (`HashedNgramEmbeddings`) stays available to pass in by hand, but measured on LoCoMo and
 * LongMemEval it adds nothing over lexical ranking, so the default does not compute it. The client
 * does not retry: a failed call falls back at once to lexical ranking (see `embedOrSkip`), where
 * the client's own retries would hold a turn for a minute behind a provider that is down.
 * Each call's tokens, as the provider reports them, go to `reportUsage` (see `UsageReportingEmbeddings`).
 */
export function createEmbeddings(settings: EmbeddingsSettings): EmbeddingsInterface | undefined {
  if (!settings.apiKey && !settings.baseUrl) return undefined;
  return new (usageReportingEmbeddings())({
    apiKey: settings.apiKey ?? "not-needed",
    model: settings.model,
    timeout: settings.timeoutMs,
    maxRetries: 0,
    configuration: settings.baseUrl ? { baseURL: settings.baseUrl } : undefined,
  });
}

/**
 * `OpenAIEmbeddings` that reports the tokens of each request it sends (the response's
 * `usage.prompt_tokens`, which LangChain's class reads past) as a call named `embeddings`: to the
 * turn that made it, else to the token metric (`reportUsage`). `embeddingWithRetry` is the one
 * method every request goes through (a large `embedDocuments` is several), and the class's
 * documented point of extension. A provider that reports no usage reports nothing here. The class
 * is made the first time it is needed, as `@langchain/openai` is loaded then (see `openAiModule`).
 */
export function usageReportingEmbeddings(): EmbeddingsClass {
  reporting ??= class UsageReportingEmbeddings extends openAiModule().OpenAIEmbeddings {
    protected override async embeddingWithRetry(request: Parameters<OpenAIEmbeddings["embeddingWithRetry"]>[0]): ReturnType<OpenAIEmbeddings["embeddingWithRetry"]> {
      const response = await super.embeddingWithRetry(request);
      const tokens = response.usage?.prompt_tokens;
      if (typeof tokens === "number") reportUsage([{ node: CALL.embeddings, inputTokens: tokens, outputTokens: 0 }]);
      return response;
    }
  };
  return reporting;
}

type EmbeddingsClass = new (fields?: ConstructorParameters<typeof OpenAIEmbeddings>[0]) => OpenAIEmbeddings;
let reporting: EmbeddingsClass | undefined;
