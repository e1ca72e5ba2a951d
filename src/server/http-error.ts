import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { MemoryGraphError, messageOf } from "../errors.js";
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

/** An error the HTTP layer answers with a given status (auth, limits, routing). */
export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

const SYSTEM_STATUS: Record<string, ContentfulStatusCode> = { GRAPH_CLOSED: 503, STORE_CLOSED: 503 };
/** Callers' mistakes that are not a bad request as such: the request conflicts with what is stored. */
const USER_STATUS: Record<string, ContentfulStatusCode> = { MESSAGE_ID_CONFLICT: 409, THREAD_SCOPE_MISMATCH: 409 };

/**
 * Maps any thrown value to a status and body. Callers' mistakes (`kind: user`) are 400 naming the
 * snake_case field (409 for a conflict with what is stored); provider failures are 502; anything else is a real fault of this service:
 * 500 (503 while closing), logged with its cause and never echoing internals to the caller.
 */
export function errorAnswer(error: unknown, requestId: string): { status: ContentfulStatusCode; body: ErrorBody; headers: Record<string, string> } {
  if (error instanceof HttpError) {
    return { status: error.status, body: bodyOf(error.code, error.message, error.field), headers: error.headers };
  }
  if (error instanceof MemoryGraphError) {
    if (error.kind === "user") {
      const field = error.field === undefined ? undefined : snakeField(error.field);
      const message = error.field && field ? error.message.replace(error.field, field) : error.message;
      return { status: USER_STATUS[error.code] ?? 400, body: bodyOf(error.code, message, field), headers: {} };
    }
    if (error.kind === "upstream") {
      log.error("http.upstream_error", { request_id: requestId, code: error.code, error: error.message });
      return { status: 502, body: bodyOf(error.code, "a provider this service depends on failed"), headers: {} };
    }
    const status = SYSTEM_STATUS[error.code] ?? 500;
    log.error("http.system_error", { request_id: requestId, code: error.code, error: error.message });
    return { status, body: bodyOf(error.code, status === 503 ? "the service is shutting down" : "internal error"), headers: {} };
  }
  log.error("http.unhandled_error", { request_id: requestId, error: messageOf(error), stack: error instanceof Error ? error.stack : undefined });
  return { status: 500, body: bodyOf("INTERNAL", "internal error"), headers: {} };
}

/** Answers `c` with the error's status and body. */
export function respondError(c: Context, error: unknown): Response {
  const requestId = (c.get("requestId" as never) as string | undefined) ?? "";
  const { status, body, headers } = errorAnswer(error, requestId);
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  return c.json(body, status);
}

function bodyOf(code: string, message: string, field?: string): ErrorBody {
  return { error: field === undefined ? { code, message } : { code, message, field } };
}
