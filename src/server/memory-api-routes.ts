import { setImmediate } from "node:timers/promises";
import { assertImportSize, validatedImport, type ImportInput } from "../memory/import-schema.js";
import { snakeKeys } from "./case.js";
import {
  importDocumentSchema,
  importQuerySchema,
  importRequestSchema,
  importResponseSchema,
  searchQuerySchema,
  searchResponseSchema,
  sessionListSchema,
  userMemoryDocumentSchema,
} from "./memory-api-schemas.js";
import { emptyQuerySchema, userPathSchema } from "./request-schemas.js";
import { API_PREFIX, BODY_ERRORS, error } from "./responses.js";
import { defineRoute, parseRequest, pathIds, queryParams, type BodyPart } from "./route.js";

/** Largest import body by default: an import carries up to 1,000 messages, so more than a turn's limit. */
export const DEFAULT_IMPORT_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Memory search, import and export over HTTP, through the facade. The tenant is the key's; the
 * user comes from the path. Requests are checked against the snake_case schemas (so an unknown or
 * bad field is named as sent) and handed to the library in camelCase.
 */

export const searchMemory = defineRoute({
  method: "get",
  path: `${API_PREFIX}/users/:user_id/memory/search`,
  tag: "memory",
  summary: "Search a user's past messages",
  description: "Ranked by the ranking recall uses, each message with its session, date, speaker and every score.",
  params: pathIds(userPathSchema),
  query: queryParams(searchQuerySchema),
  responses: { 200: { description: "The best-ranked messages, best first.", json: searchResponseSchema } },
  handle: async (c, { params: { user_id: userId }, query }, { memory }) => {
    const result = await memory.search({
      tenantId: c.get("tenantId"),
      userId,
      query: query.q,
      ...(query.limit === undefined ? {} : { limit: Number(query.limit) }),
      ...(query.session_id === undefined ? {} : { sessionId: query.session_id }),
      ...(query.as_of === undefined ? {} : { asOf: query.as_of }),
      withContext: query.memory_context === "true",
    });
    return c.json(searchResponseSchema.parse({ user_id: userId, query: query.q, ...(snakeKeys(result) as object) }), 200);
  },
});

/** Past sessions or an export document, checked once, here, by the core's rules: the library takes the parsed import as it is. */
const importBody: BodyPart<ImportInput> = {
  schema: importRequestSchema,
  limitBytes: (deps) => deps.importBodyLimitBytes,
  parse: async (body) => {
    // Reading and checking a large body is long synchronous work: other requests go first.
    await setImmediate();
    // Too many messages is a 413 before any field is looked at, as for a library caller.
    assertImportSize(body);
    return validatedImport(Array.isArray(body) ? parseRequest(sessionListSchema, body) : parseRequest(importDocumentSchema, body));
  },
};

export const importSessions = defineRoute({
  method: "post",
  path: `${API_PREFIX}/users/:user_id/sessions/import`,
  tag: "memory",
  summary: "Import past sessions (or an export) into a user's memory",
  description:
    "Stores the messages as live turns are stored (transcript and recall index), in one transaction. Idempotent by message id, the counts what was written; " +
    "a bad element rejects the whole request, naming its index and field, and nothing is stored: a record pointing at a session or message neither the document " +
    "nor the store holds is UNKNOWN_REFERENCE, an export of another user IMPORT_USER_MISMATCH unless `as_user` names the path's user.",
  params: pathIds(userPathSchema),
  query: queryParams(importQuerySchema),
  body: importBody,
  responses: {
    200: { description: "What was imported.", json: importResponseSchema },
    409: error("MESSAGE_ID_CONFLICT: a message id is stored with another role, speaker or text; nothing was imported."),
    413: error("PAYLOAD_TOO_LARGE (the body is over the import limit) or IMPORT_TOO_LARGE (too many messages or characters): send it in parts."),
    415: BODY_ERRORS[415],
  },
  handle: async (c, { params: { user_id: userId }, query: { classify, as_user: asUser }, body }, { memory }) => {
    const counts = await memory.importSessions({ tenantId: c.get("tenantId"), userId }, body, { classify: classify === "true", ...(asUser === undefined ? {} : { asUser }) });
    return c.json(importResponseSchema.parse({ user_id: userId, ...counts }), 200);
  },
});

export const exportUser = defineRoute({
  method: "get",
  path: `${API_PREFIX}/users/:user_id/export`,
  tag: "memory",
  summary: "Every layer of a user's memory, as one document",
  description: "Sessions and their messages, events, facts with validity, summaries: the import route takes it back.",
  params: pathIds(userPathSchema),
  query: queryParams(emptyQuerySchema),
  responses: { 200: { description: "The user's memory.", json: userMemoryDocumentSchema } },
  handle: async (c, { params: { user_id: userId } }, { memory }) => {
    const exported = await memory.exportUser({ tenantId: c.get("tenantId"), userId });
    return c.json(userMemoryDocumentSchema.parse(snakeKeys(exported)), 200);
  },
});
