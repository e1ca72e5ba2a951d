import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { OpenAIEmbeddings } from "@langchain/openai";

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
 */
export function createEmbeddings(settings: EmbeddingsSettings): EmbeddingsInterface | undefined {
  if (!settings.apiKey && !settings.baseUrl) return undefined;
  return new OpenAIEmbeddings({
    apiKey: settings.apiKey ?? "not-needed",
    model: settings.model,
    timeout: settings.timeoutMs,
    maxRetries: 0,
    configuration: settings.baseUrl ? { baseURL: settings.baseUrl } : undefined,
  });
}
