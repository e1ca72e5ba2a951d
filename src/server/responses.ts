import { z, type ZodObject } from "zod";
import { errorBodySchema } from "./http-error.js";
import type { AnyRoute, ResponseSpec, Status } from "./route.js";

/**
 * The answers many routes share (each one object, so the document holds it once, as a component),
 * and what every route under API_PREFIX may answer besides its own.
 */

/** Routes under this prefix need an API key (when keys are configured) and count against the rate limit. */
export const API_PREFIX = "/v1";

/** Set on the answer of a request whose `message_id` was already answered: the stored result, replayed. */
export const REPLAYED_HEADER = "Idempotent-Replayed";

export const replayedHeader = z.object({
  [REPLAYED_HEADER]: z
    .literal("true")
    .optional()
    .meta({ description: "Set when this is the stored answer of an earlier request with the same message_id (nothing ran or was written)." }),
});

export const error = (description: string, options: { id?: string; headers?: ZodObject } = {}): ResponseSpec => ({ description, json: errorBodySchema, ...options });

const BAD_REQUEST = error(
  "The request is invalid: a bad or unknown field (`error.field` names it, in snake_case), a bad id (INVALID_ID), " +
    "a body that is not JSON (INVALID_JSON), holds one key twice in an object (DUPLICATE_KEY) or is cut short (BODY_INCOMPLETE), JSON over the structure bound (INPUT_TOO_COMPLEX: " +
    "32 levels, 10,000 items per array, 1,000 keys per object, 1,000,000 characters per string), text with NUL or a lone surrogate " +
    "(INVALID_TEXT), a prompt over the limit (PROMPT_TOO_LONG), an unknown parent (UNKNOWN_PARENT).",
  { id: "BadRequest" },
);
export const TURN_CONFLICT = error(
  "MESSAGE_ID_CONFLICT: the message_id was first sent with another message or parent, or is the id of an assistant message; nothing was written.",
  { id: "MessageIdConflict" },
);
export const BODY_ERRORS = {
  413: error("PAYLOAD_TOO_LARGE: the body is over the size limit.", { id: "PayloadTooLarge" }),
  415: error("UNSUPPORTED_MEDIA_TYPE: the body must be application/json.", { id: "UnsupportedMediaType" }),
};

/** What every route under API_PREFIX may answer besides its own: the key check, the rate limit, faults. */
export const API_RESPONSES: Partial<Record<Status, ResponseSpec>> = {
  400: BAD_REQUEST,
  401: error("UNAUTHORIZED: no API key, or an unknown one.", { id: "Unauthorized", headers: z.object({ "WWW-Authenticate": z.literal("Bearer") }) }),
  429: error("RATE_LIMITED: over this key's requests per minute (counted across every worker and instance). With the limit on, every answer under /v1 carries the RateLimit headers.", {
    id: "RateLimited",
    headers: z.object({
      "Retry-After": z.string().meta({ description: "Seconds until the next window." }),
      "RateLimit-Limit": z.string().meta({ description: "Requests per window for this key." }),
      "RateLimit-Remaining": z.string().meta({ description: "Requests left in this window." }),
      "RateLimit-Reset": z.string().meta({ description: "Seconds until this window ends." }),
      "RateLimit-Policy": z.string().meta({ description: "The limit and window, e.g. `100;w=60`." }),
    }),
  }),
  500: error("A fault of this service (INTERNAL or a system error code); no internals are shown.", { id: "InternalError" }),
  503: error(
    "The service cannot serve this now. Shutting down (GRAPH_CLOSED, STORE_CLOSED): retry on another instance. " +
      "Storage does not answer (MEMORY_STORE_UNAVAILABLE: the long-term memory store; SESSION_STORE_UNAVAILABLE: the session store, " +
      "where a request cannot do without it): nothing was stored; retry after `Retry-After` seconds. A turn whose session store " +
      "alone is down is answered (200, `degraded: [\"session_store\"]`), not refused. At capacity (OVERLOADED: this instance runs " +
      "its most turns at once, MAX_CONCURRENT_TURNS, and none freed up within TURN_QUEUE_MS): nothing ran; retry after `Retry-After` seconds.",
    {
      id: "ShuttingDown",
      headers: z.object({
        "Retry-After": z.string().optional().meta({ description: "Seconds to wait before retrying (sent when storage does not answer, and at capacity)." }),
      }),
    },
  ),
};

/** What every route may answer: the path exists, the method does not. */
export const METHOD_NOT_ALLOWED = error("METHOD_NOT_ALLOWED: this path takes other methods, which `Allow` lists.", {
  id: "MethodNotAllowed",
  headers: z.object({ Allow: z.string().meta({ description: "The methods this path takes, e.g. `GET, HEAD`." }) }),
});

/** Whether `route` is under API_PREFIX (a key and the rate limit apply). */
export function isApiRoute(route: Pick<AnyRoute, "path">): boolean {
  return route.path.startsWith(`${API_PREFIX}/`);
}

/** Every status `route` may answer, with its description: its own, the API's common ones, and 405. */
export function responsesOf(route: Pick<AnyRoute, "path" | "responses">): Partial<Record<Status, ResponseSpec>> {
  return { ...(isApiRoute(route) ? API_RESPONSES : {}), 405: METHOD_NOT_ALLOWED, ...route.responses };
}
