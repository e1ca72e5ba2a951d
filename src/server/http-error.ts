import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { MemoryGraphError, messageOf, type ErrorCode, type ErrorKind } from "../errors.js";
import { log } from "../logger.js";
import { snakeField } from "./case.js";

/** The JSON body of every error answer: `{"error": {"code", "message", "field"}}`. */
export const errorBodySchema = z
  .object({
    error: z
      .object({
        code: z.string().meta({ description: "A stable UPPER_SNAKE code, e.g. INVALID_INPUT, MESSAGE_ID_CONFLICT.", example: "INVALID_INPUT" }),
        message: z.string().meta({ description: "What went wrong, for people; never internals." }),
        field: z.string().optional().meta({ description: "The request field at fault (snake_case, dotted), when one is.", example: "prompts.0.text" }),
      })
      .strict(),
  })
  .strict()
  .meta({ id: "Error" });

export type ErrorBody = z.infer<typeof errorBodySchema>;

/**
 * The one table from errors to HTTP statuses: a code listed here has its own status; any other
 * error answers by its kind (the caller's mistake 400, a provider's failure 502, a fault of this
 * service 500).
 */
const STATUS_OF_CODE: Partial<Record<ErrorCode, ContentfulStatusCode>> = {
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  FACT_NOT_FOUND: 404,
  EVENT_NOT_FOUND: 404,
  MESSAGE_NOT_FOUND: 404,
  SUMMARY_NOT_FOUND: 404,
  TURN_CONTEXT_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  // The request conflicts with what is stored.
  MESSAGE_ID_CONFLICT: 409,
  THREAD_SCOPE_MISMATCH: 409,
  FACT_STALE: 409,
  PAYLOAD_TOO_LARGE: 413,
  IMPORT_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  // Storage that does not answer: nothing was stored, retry after Retry-After.
  SESSION_STORE_UNAVAILABLE: 503,
  MEMORY_STORE_UNAVAILABLE: 503,
  // Closing: another instance can take the request.
  GRAPH_CLOSED: 503,
  STORE_CLOSED: 503,
  // At capacity (admission control): nothing ran, retry after Retry-After.
  OVERLOADED: 503,
};
const STATUS_OF_KIND: Record<ErrorKind, ContentfulStatusCode> = { user: 400, upstream: 502, system: 500 };

/** The HTTP status of an error of `code` and `kind`. */
export function statusOf(code: ErrorCode, kind: ErrorKind): ContentfulStatusCode {
  return STATUS_OF_CODE[code] ?? STATUS_OF_KIND[kind];
}

/**
 * Maps any thrown value to a status (by `statusOf`) and body. Callers' mistakes (`kind: user`)
 * name the snake_case field; provider failures and faults of this service are logged with their
 * cause and never echo internals to the caller; storage that does not answer (an error with a
 * `dependency`) is 503, naming it, with Retry-After (set by `respondError`), as is a turn refused at
 * capacity (OVERLOADED).
 */
export function errorAnswer(error: unknown, requestId: string): { status: ContentfulStatusCode; body: ErrorBody } {
  if (error instanceof MemoryGraphError) {
    // `instanceof` narrows a generic class to MemoryGraphError<any>: name the code type again.
    const { code, kind, field, message } = error as MemoryGraphError;
    const status = statusOf(code, kind);
    if (kind === "user") {
      const snake = field === undefined ? undefined : snakeField(field);
      return { status, body: bodyOf(code, field && snake ? message.replace(field, snake) : message, snake) };
    }
    if (error.dependency !== undefined) {
      // A storage dependency does not answer: nothing was stored, and the caller may retry.
      log.warn("http.unavailable", { request_id: requestId, code, dependency: error.dependency });
      return { status, body: bodyOf(code, message) };
    }
    // Refused at capacity (already logged by the admission): the message says so, nothing internal in it.
    if (code === "OVERLOADED") return { status, body: bodyOf(code, message) };
    if (kind === "upstream") {
      log.error("http.upstream_error", { request_id: requestId, code, error: message });
      return { status, body: bodyOf(code, "a provider this service depends on failed") };
    }
    log.error("http.system_error", { request_id: requestId, code, error: message });
    return { status, body: bodyOf(code, status === 503 ? "the service is shutting down" : "internal error") };
  }
  log.error("http.unhandled_error", { request_id: requestId, error: messageOf(error), stack: error instanceof Error ? error.stack : undefined });
  return { status: 500, body: bodyOf("INTERNAL", "internal error") };
}

/** Answers `c` with the error's status and body (headers already set on `c`, such as `Allow`, are kept). */
export function respondError(c: Context, error: unknown): Response {
  const requestId = (c.get("requestId" as never) as string | undefined) ?? "";
  const { status, body } = errorAnswer(error, requestId);
  if (error instanceof MemoryGraphError && (error.dependency !== undefined || error.code === "OVERLOADED")) c.header("Retry-After", String(error.retryAfterSeconds ?? 1));
  return c.json(body, status);
}

function bodyOf(code: string, message: string, field?: string): ErrorBody {
  return { error: field === undefined ? { code, message } : { code, message, field } };
}
