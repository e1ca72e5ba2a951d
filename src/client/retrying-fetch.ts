/** When and how often the client tries a request again. */
export interface RetryOptions {
  /** Tries after the first (default 2); 0 never retries. */
  retries?: number;
  /** First back-off when the service names no wait (default 200 ms, doubling each try). */
  baseDelayMs?: number;
  /** Longest wait the client accepts: a `Retry-After` beyond it is handed to the caller as the error (default 5000 ms). */
  maxDelayMs?: number;
}

/** Answers worth another try: over the rate limit, a failed model or provider, storage or instance unavailable. */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);

const sleep = (ms: number, signal?: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason as Error)), { once: true });
  });

/**
 * A fetch that sends a request again, the same request (so a turn keeps its `message_id` and the
 * service replays or finishes the first try instead of answering twice), when no answer came or
 * the answer is 429, 502, 503 or 504 — after the answer's `Retry-After`, else after a doubling
 * back-off with jitter. The last answer (or network error) is what the caller gets.
 */
export function retryingFetch(send: (request: Request) => Promise<Response>, options: RetryOptions = {}): (request: Request) => Promise<Response> {
  const { retries = 2, baseDelayMs = 200, maxDelayMs = 5000 } = options;
  return async (request) => {
    for (let attempt = 0; ; attempt += 1) {
      const last = attempt >= retries;
      let response: Response;
      try {
        response = await send(last ? request : request.clone());
      } catch (error) {
        if (last || request.signal.aborted) throw error;
        await sleep(backoff(baseDelayMs, attempt, maxDelayMs), request.signal);
        continue;
      }
      if (last || !RETRY_STATUSES.has(response.status)) return response;
      const retryAfter = Number(response.headers.get("retry-after"));
      const wait = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : backoff(baseDelayMs, attempt, maxDelayMs);
      if (wait > maxDelayMs) return response;
      await response.body?.cancel();
      await sleep(wait, request.signal);
    }
  };
}

function backoff(baseMs: number, attempt: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** attempt * (0.8 + Math.random() * 0.4));
}
