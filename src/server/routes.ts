import type { Handler } from "hono";
import { z, type ZodObject, type ZodType } from "zod";
import type { ServerEnv } from "./context.js";
import { errorBodySchema } from "./http-error.js";
import {
  importQuerySchema,
  importRequestSchema,
  importResponseSchema,
  searchQuerySchema,
  searchResponseSchema,
  userMemoryDocumentSchema,
} from "./memory-api-schemas.js";
import { sessionsQuerySchema, sessionsResponseSchema } from "./session-list-schemas.js";
import { itemRoutes } from "./item-route-table.js";
import { emptyQuerySchema, sessionPathSchema, turnRequestSchema, userPathSchema, userQuerySchema } from "./request-schemas.js";
import {
  forgetResponseSchema,
  healthResponseSchema,
  memoryResponseSchema,
  messagesResponseSchema,
  notReadyResponseSchema,
  readyResponseSchema,
  turnEventSchema,
  turnResponseSchema,
} from "./response-schemas.js";

/**
 * Every route of the HTTP service, in one table: the server registers exactly these (a handler
 * per `operationId`), and the OpenAPI document is built from them, with the same schemas the
 * handlers validate and answer with. Paths are in Hono's syntax (`:name`).
 */

/** Routes under this prefix need an API key (when keys are configured) and count against the rate limit. */
export const API_PREFIX = "/v1";

export type Status = 200 | 400 | 401 | 404 | 405 | 409 | 413 | 415 | 429 | 500 | 502 | 503;

/** One answer of a route: a JSON body, or (for a stream) server-sent events, and the headers it may carry. */
export interface ResponseSpec {
  /** Set on an answer many routes share: the document holds it once, as a component. */
  id?: string;
  description: string;
  json?: ZodType;
  events?: ZodType;
  /** A text answer of this media type (the inspector's page and files). */
  text?: string;
  /** Response headers beyond `X-Request-Id` (which every answer carries). */
  headers?: ZodObject;
}

export interface RouteSpec {
  method: "get" | "post" | "patch" | "delete";
  path: string;
  summary: string;
  description?: string;
  tag: "turns" | "memory" | "health";
  params?: ZodObject;
  query?: ZodObject;
  body?: ZodType;
  /** Every status the route answers, other than what every route under API_PREFIX may answer. */
  responses: Partial<Record<Status, ResponseSpec>>;
}

/** Set on the answer of a request whose `message_id` was already answered: the stored result, replayed. */
export const REPLAYED_HEADER = "Idempotent-Replayed";

const replayed = z.object({
  [REPLAYED_HEADER]: z
    .literal("true")
    .optional()
    .meta({ description: "Set when this is the stored answer of an earlier request with the same message_id (nothing ran or was written)." }),
});

const error = (description: string, options: { id?: string; headers?: ZodObject } = {}): ResponseSpec => ({ description, json: errorBodySchema, ...options });

const BAD_REQUEST = error(
  "The request is invalid: a bad or unknown field (`error.field` names it, in snake_case), a bad id (INVALID_ID), " +
    "a body that is not JSON (INVALID_JSON) or cut short (BODY_INCOMPLETE), JSON over the structure bound (INPUT_TOO_COMPLEX: " +
    "32 levels, 10,000 items per array, 1,000 keys per object, 1,000,000 characters per string), text with NUL or a lone surrogate " +
    "(INVALID_TEXT), a prompt over the limit (PROMPT_TOO_LONG), an unknown parent (UNKNOWN_PARENT).",
  { id: "BadRequest" },
);
const TURN_CONFLICT = error(
  "MESSAGE_ID_CONFLICT: the message_id was first sent with another message or parent, or is the id of an assistant message; nothing was written.",
  { id: "MessageIdConflict" },
);
const BODY_ERRORS = {
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
      "alone is down is answered (200, `degraded: [\"session_store\"]`), not refused.",
    {
      id: "ShuttingDown",
      headers: z.object({
        "Retry-After": z.string().optional().meta({ description: "Seconds to wait before retrying (sent when storage does not answer)." }),
      }),
    },
  ),
};

/** What every route may answer: the path exists, the method does not. */
export const METHOD_NOT_ALLOWED = error("METHOD_NOT_ALLOWED: this path takes other methods, which `Allow` lists.", {
  id: "MethodNotAllowed",
  headers: z.object({ Allow: z.string().meta({ description: "The methods this path takes, e.g. `GET, HEAD`." }) }),
});

export const ROUTES = {
  createTurn: {
    method: "post",
    path: `${API_PREFIX}/turns`,
    tag: "turns",
    summary: "Answer one user message",
    description:
      "Stores the message, recalls memory, answers, and updates memory. A message_id makes retries safe: the same id with the same text and parent replays the stored answer.",
    body: turnRequestSchema,
    responses: {
      200: { description: "The turn's result: status OK, or SKIP when there was no prompt text.", json: turnResponseSchema, headers: replayed },
      409: TURN_CONFLICT,
      ...BODY_ERRORS,
      502: {
        description: "The turn ended in ERROR: the model failed and no fallback answered. Same body as 200 (status ERROR, the stored message ids, the errors); a retry with its message_id asks again.",
        json: turnResponseSchema,
      },
    },
  },
  streamTurn: {
    method: "post",
    path: `${API_PREFIX}/turns/stream`,
    tag: "turns",
    summary: "Answer one user message, streaming the reply",
    description: "The same turn as POST /v1/turns. Every check runs before the stream opens, so a refused request is a plain error answer.",
    body: turnRequestSchema,
    responses: {
      200: {
        description: "Server-sent events: `token` events with the reply as it is produced, then one `result` (the turn's result, status OK, SKIP or ERROR) or one `error`.",
        events: turnEventSchema,
        headers: replayed,
      },
      409: TURN_CONFLICT,
      ...BODY_ERRORS,
    },
  },
  listSessionMessages: {
    method: "get",
    path: `${API_PREFIX}/sessions/:session_id/messages`,
    tag: "memory",
    summary: "The session's current thread, root first",
    params: sessionPathSchema,
    query: userQuerySchema,
    responses: {
      200: { description: "The messages of the session's current thread.", json: messagesResponseSchema },
      404: error("SESSION_NOT_FOUND: this user has no such session."),
    },
  },
  forgetSession: {
    method: "delete",
    path: `${API_PREFIX}/sessions/:session_id`,
    tag: "memory",
    summary: "Forget one session and what was learned in it",
    params: sessionPathSchema,
    query: userQuerySchema,
    responses: { 200: { description: "What was deleted, and the facts of other sessions current again.", json: forgetResponseSchema } },
  },
  getUserMemory: {
    method: "get",
    path: `${API_PREFIX}/users/:user_id/memory`,
    tag: "memory",
    summary: "A user's long-term memory",
    params: userPathSchema,
    query: emptyQuerySchema,
    responses: { 200: { description: "Important events, attributes, facts (with validity) and summaries.", json: memoryResponseSchema } },
  },
  listUserSessions: {
    method: "get",
    path: `${API_PREFIX}/users/:user_id/sessions`,
    tag: "memory",
    summary: "A user's sessions, newest first",
    description: "Each with a title (the model's when one is configured, else the first user message), message count, first and last activity; paged by limit and offset.",
    params: userPathSchema,
    query: sessionsQuerySchema,
    responses: { 200: { description: "One page of the user's sessions.", json: sessionsResponseSchema } },
  },
  forgetUser: {
    method: "delete",
    path: `${API_PREFIX}/users/:user_id`,
    tag: "memory",
    summary: "Forget a user: every layer, every session",
    params: userPathSchema,
    query: emptyQuerySchema,
    responses: { 200: { description: "What was deleted.", json: forgetResponseSchema } },
  },
  searchMemory: {
    method: "get",
    path: `${API_PREFIX}/users/:user_id/memory/search`,
    tag: "memory",
    summary: "Search a user's past messages",
    description: "Ranked by the ranking recall uses, each message with its session, date, speaker and every score.",
    params: userPathSchema,
    query: searchQuerySchema,
    responses: { 200: { description: "The best-ranked messages, best first.", json: searchResponseSchema } },
  },
  importSessions: {
    method: "post",
    path: `${API_PREFIX}/users/:user_id/sessions/import`,
    tag: "memory",
    summary: "Import past sessions (or an export) into a user's memory",
    description:
      "Stores the messages as live turns are stored (transcript and recall index), in one transaction. Idempotent by message id, the counts what was written; " +
      "a bad element rejects the whole request, naming its index and field, and nothing is stored: a record pointing at a session or message neither the document " +
      "nor the store holds is UNKNOWN_REFERENCE, an export of another user IMPORT_USER_MISMATCH unless `as_user` names the path's user.",
    params: userPathSchema,
    query: importQuerySchema,
    body: importRequestSchema,
    responses: {
      200: { description: "What was imported.", json: importResponseSchema },
      409: error("MESSAGE_ID_CONFLICT: a message id is stored with another role, speaker or text; nothing was imported."),
      413: error("PAYLOAD_TOO_LARGE (the body is over the import limit) or IMPORT_TOO_LARGE (too many messages or characters): send it in parts."),
      415: BODY_ERRORS[415],
    },
  },
  exportUser: {
    method: "get",
    path: `${API_PREFIX}/users/:user_id/export`,
    tag: "memory",
    summary: "Every layer of a user's memory, as one document",
    description: "Sessions and their messages, events, facts with validity, summaries: the import route takes it back.",
    params: userPathSchema,
    query: emptyQuerySchema,
    responses: { 200: { description: "The user's memory.", json: userMemoryDocumentSchema } },
  },
  ...itemRoutes({ error, bodyErrors: BODY_ERRORS, prefix: API_PREFIX }),
  inspector: {
    method: "get",
    path: "/inspector",
    tag: "health",
    summary: "The memory inspector page",
    description:
      "A page to see and correct a user's memory through this API (the key is typed into the page and sent as the bearer key of every call). " +
      "On unless NODE_ENV=production (or on Cloud Run); INSPECTOR=on|off decides.",
    responses: { 200: { description: "The page.", text: "text/html" }, 404: error("NOT_FOUND: the inspector is off.") },
  },
  inspectorAsset: {
    method: "get",
    path: "/inspector/:file",
    tag: "health",
    summary: "The inspector's script and style",
    params: z.object({ file: z.enum(["inspector.js", "inspector.css"]) }),
    responses: { 200: { description: "The file (text/javascript or text/css).", text: "text/javascript" }, 404: error("NOT_FOUND: no such file, or the inspector is off.") },
  },
  health: {
    method: "get",
    path: "/healthz",
    tag: "health",
    summary: "Liveness",
    responses: { 200: { description: "The process serves requests.", json: healthResponseSchema } },
  },
  ready: {
    method: "get",
    path: "/readyz",
    tag: "health",
    summary: "Readiness: storage answers and the service is not draining",
    description:
      "Answers within a second, always: every storage dependency (session_store, memory_store) is pinged at once, each for at most 800 ms. " +
      "Cloud Run and load balancers read it; GET /healthz is liveness only.",
    responses: {
      200: { description: "Ready for traffic: every dependency answered.", json: readyResponseSchema },
      503: {
        description:
          "DRAINING (shutting down), or STORAGE_UNREACHABLE: the message names each dependency that did not answer, and `dependencies` gives every one's state.",
        json: z.union([errorBodySchema, notReadyResponseSchema]),
      },
    },
  },
  openApi: {
    method: "get",
    path: "/openapi.json",
    tag: "health",
    summary: "This document",
    responses: { 200: { description: "The OpenAPI 3.1 document of this service.", json: z.record(z.string(), z.unknown()) } },
  },
} as const satisfies Record<string, RouteSpec>;

export type OperationId = keyof typeof ROUTES;

/** A handler for every route of the table: the server registers these and nothing else. */
export type RouteHandlers = Record<OperationId, Handler<ServerEnv>>;

/** Whether `route` is under API_PREFIX (a key and the rate limit apply). */
export function isApiRoute(route: Pick<RouteSpec, "path">): boolean {
  return route.path.startsWith(`${API_PREFIX}/`);
}

/** Every status `route` may answer, with its description: its own, the API's common ones, and 405. */
export function responsesOf(route: RouteSpec): Partial<Record<Status, ResponseSpec>> {
  return { ...(isApiRoute(route) ? API_RESPONSES : {}), 405: METHOD_NOT_ALLOWED, ...route.responses };
}
