import type { ErrorCode } from "../errors.js";

/** A code the service answers with: one of memory-graph's stable codes (or a newer one this client does not know yet). */
export type ApiErrorCode = ErrorCode | (string & {});

/**
 * An error answer of the memory-graph service, or a failure to reach it. `code` is the service's
 * stable UPPER_SNAKE code (`RATE_LIMITED`, `MESSAGE_ID_CONFLICT`, …); `NETWORK_ERROR` when no
 * answer came, `STREAM_INTERRUPTED` when a stream broke and its retry did not answer either.
 */
export class MemoryGraphApiError extends Error {
  override readonly name = "MemoryGraphApiError";
  readonly code: ApiErrorCode;
  /** The HTTP status (0 when no answer came). */
  readonly status: number;
  /** The request field at fault (snake_case, dotted), for a 400. */
  readonly field?: string;
  /** The service's X-Request-Id of the failed request, to find its log lines. */
  readonly requestId?: string;
  /** Seconds the service asked to wait (429, 503), when it did. */
  readonly retryAfterSeconds?: number;

  constructor(
    code: ApiErrorCode,
    message: string,
    details: { status: number; field?: string; requestId?: string; retryAfterSeconds?: number; cause?: unknown },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.status = details.status;
    this.field = details.field;
    this.requestId = details.requestId;
    this.retryAfterSeconds = details.retryAfterSeconds;
  }

  /** Whether this is the error of `code` (narrows `code` for a switch-free check). */
  is<C extends ErrorCode | "NETWORK_ERROR" | "STREAM_INTERRUPTED">(code: C): this is MemoryGraphApiError & { code: C } {
    return this.code === code;
  }
}

/** The error of an answer whose body (parsed JSON, or anything else) came back as `body`. */
export function errorOfAnswer(response: Response, body: unknown): MemoryGraphApiError {
  const error = (body as { error?: { code?: unknown; message?: unknown; field?: unknown } } | null)?.error;
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  const retryAfter = Number(response.headers.get("retry-after"));
  return new MemoryGraphApiError(text(error?.code) ?? `HTTP_${response.status}`, text(error?.message) ?? `HTTP ${response.status}`, {
    status: response.status,
    field: text(error?.field),
    requestId: response.headers.get("x-request-id") ?? undefined,
    retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  });
}
