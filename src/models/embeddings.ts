import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { OpenAIEmbeddings } from "@langchain/openai";
import { HashedNgramEmbeddings } from "../memory/ranking/index.js";

export interface EmbeddingsSettings {
  apiKey?: string;
  baseUrl?: string;
  model: string;
  timeoutMs: number;
}

/**
 * OpenAI embeddings (or any OpenAI-compatible server) when a key or base URL is configured;
 * otherwise the local hashed character n-gram embedder, which needs no download. The client does
 * not retry: a failed call falls back at once to lexical ranking (see `embedOrSkip`), where the
 * client's own retries would hold a turn for a minute behind a provider that is down.
 */
export function createEmbeddings(settings: EmbeddingsSettings): EmbeddingsInterface {
  if (!settings.apiKey && !settings.baseUrl) return new HashedNgramEmbeddings();
  return new OpenAIEmbeddings({
    apiKey: settings.apiKey ?? "not-needed",
    model: settings.model,
    timeout: settings.timeoutMs,
    maxRetries: 0,
    configuration: settings.baseUrl ? { baseURL: settings.baseUrl } : undefined,
  });
}
