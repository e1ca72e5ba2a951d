import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { log } from "../logger.js";
import { openAiModule } from "./openai-module.js";

/** How to reach the chat model; `apiKey` or `baseUrl` must be set for a model to exist. */
export interface ChatModelSettings {
  apiKey?: string;
  baseUrl?: string;
  model: string;
  timeoutMs: number;
  temperature?: number;
  maxRetries?: number;
}

/** Local OpenAI-compatible servers (Ollama, vLLM) ignore the key, but the client wants one. */
const PLACEHOLDER_KEY = "not-needed";

/**
 * A `ChatOpenAI` client when an API key or a base URL is configured (a base URL alone uses a
 * placeholder key), else `null`: the caller then takes the non-LLM fallbacks.
 */
export function createChatModel(settings: ChatModelSettings): BaseChatModel | null {
  const apiKey = settings.apiKey?.trim() || undefined;
  const baseUrl = settings.baseUrl?.trim() || undefined;
  if (!apiKey && !baseUrl) {
    log.debug("chat_model_not_configured");
    return null;
  }
  log.debug("chat_model_configured", { model: settings.model, customBaseUrl: baseUrl !== undefined });
  const { ChatOpenAI } = openAiModule();
  return new ChatOpenAI({
    model: settings.model,
    apiKey: apiKey ?? PLACEHOLDER_KEY,
    timeout: settings.timeoutMs,
    maxRetries: settings.maxRetries ?? 2,
    ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
    ...(baseUrl ? { configuration: { baseURL: baseUrl } } : {}),
  });
}

const TRANSIENT_CODES = new Set([
  "ECONNRESET", "ECONNREFUSED", "ECONNABORTED", "ETIMEDOUT", "EPIPE", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH",
  "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT",
]);
const TRANSIENT_NAMES = new Set(["TimeoutError", "APIConnectionError", "APIConnectionTimeoutError", "ConnectTimeoutError"]);
const TRANSIENT_MESSAGE =
  /timed? ?out|socket hang up|ECONNRESET|connection (reset|error|closed|refused)|rate limit|overloaded|temporarily unavailable|fetch failed|network error/i;

function statusOf(error: Record<string, unknown>): number | undefined {
  for (const key of ["status", "statusCode"]) {
    const value = error[key];
    if (typeof value === "number") return value;
  }
  const response = error.response;
  if (response && typeof response === "object" && typeof (response as { status?: unknown }).status === "number") {
    return (response as { status: number }).status;
  }
  return undefined;
}

/**
 * True for failures worth retrying: HTTP 408, 425, 429 and 5xx, timeouts, connection resets
 * and refusals, also when wrapped as the `cause` of another error. A user abort, a 4xx or a
 * bad answer is not transient.
 */
export function isTransientError(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    if (typeof current !== "object") return typeof current === "string" && TRANSIENT_MESSAGE.test(current);
    const e = current as Record<string, unknown>;
    const status = statusOf(e);
    if (status !== undefined) return status === 408 || status === 425 || status === 429 || status >= 500;
    if (e.name === "AbortError") return false;
    if (e.lc_error_code === "MODEL_RATE_LIMIT") return true;
    if (typeof e.code === "string" && TRANSIENT_CODES.has(e.code)) return true;
    if (typeof e.name === "string" && TRANSIENT_NAMES.has(e.name)) return true;
    if (typeof e.message === "string" && TRANSIENT_MESSAGE.test(e.message)) return true;
    current = e.cause;
  }
  return false;
}

/** Options for {@link withRetry}. `retries` counts the extra attempts after the first. */
export interface RetryOptions {
  retries: number;
  baseDelayMs: number;
  maxDelayMs?: number;
  isRetryable?: (error: unknown) => boolean;
  onRetry?: (attempt: number, error: unknown) => void;
}

function retryAfterMs(error: unknown): number | undefined {
  const headers = (error as { headers?: unknown } | null)?.headers;
  if (!headers || typeof headers !== "object") return undefined;
  const raw =
    typeof (headers as { get?: unknown }).get === "function"
      ? (headers as Headers).get("retry-after")
      : (headers as Record<string, unknown>)["retry-after"];
  const seconds = Number(raw);
  return typeof raw === "string" && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

/**
 * Runs `fn`, retrying failures that `isRetryable` (default {@link isTransientError}) accepts,
 * up to `retries` more times, waiting an exponentially growing delay with jitter (half fixed,
 * half random; a server's Retry-After is honoured up to `maxDelayMs`). Other errors, and the
 * last transient one, are rethrown unchanged.
 */
export async function withRetry<T>(fn: () => Promise<T>, options: RetryOptions): Promise<T> {
  const isRetryable = options.isRetryable ?? isTransientError;
  const maxDelay = options.maxDelayMs ?? 30_000;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fn();
    } catch (error) {
      if (attempt > options.retries || !isRetryable(error)) throw error;
      options.onRetry?.(attempt, error);
      const exponential = Math.min(maxDelay, options.baseDelayMs * 2 ** (attempt - 1));
      const jittered = exponential / 2 + Math.random() * (exponential / 2);
      const delay = Math.min(maxDelay, Math.max(jittered, retryAfterMs(error) ?? 0));
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
