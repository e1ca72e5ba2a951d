import { MemoryGraphError } from "../errors.js";
import { emptyQuerySchema, sessionPathSchema, userPathSchema, userQuerySchema } from "./request-schemas.js";
import { API_PREFIX, error } from "./responses.js";
import { forgetResponseSchema, memoryResponseOf, memoryResponseSchema, messagesResponseOf, messagesResponseSchema } from "./response-schemas.js";
import { defineRoute, pathIds, queryParams } from "./route.js";

/**
 * Reading and forgetting memory, through the facade. Every scope is the key's tenant plus ids
 * from the path and query, so a key can only ever name its own tenant's data.
 */

export const listSessionMessages = defineRoute({
  method: "get",
  path: `${API_PREFIX}/sessions/:session_id/messages`,
  tag: "memory",
  summary: "The session's current thread, root first",
  params: pathIds(sessionPathSchema),
  query: queryParams(userQuerySchema),
  responses: {
    200: { description: "The messages of the session's current thread.", json: messagesResponseSchema },
    404: error("SESSION_NOT_FOUND: this user has no such session."),
  },
  handle: async (c, { params: { session_id: sessionId }, query: { user_id: userId } }, { memory }) => {
    const thread = await memory.sessionMessages({ tenantId: c.get("tenantId"), userId, sessionId });
    if (!thread) throw new MemoryGraphError("SESSION_NOT_FOUND", "no such session for this user", { kind: "user" });
    return c.json(messagesResponseOf(userId, sessionId, thread), 200);
  },
});

export const forgetSession = defineRoute({
  method: "delete",
  path: `${API_PREFIX}/sessions/:session_id`,
  tag: "memory",
  summary: "Forget one session and what was learned in it",
  params: pathIds(sessionPathSchema),
  query: queryParams(userQuerySchema),
  responses: { 200: { description: "What was deleted, and the facts of other sessions current again.", json: forgetResponseSchema } },
  handle: async (c, { params: { session_id: sessionId }, query: { user_id: userId } }, { memory }) => {
    // Pinned facts the session taught stay; the library's result and log count them (`keptPinnedFacts`).
    const { restoredFacts, keptPinnedFacts: _kept, ...deleted } = await memory.forgetSession({ tenantId: c.get("tenantId"), userId, sessionId });
    return c.json(forgetResponseSchema.parse({ user_id: userId, session_id: sessionId, deleted, restored: { facts: restoredFacts } }), 200);
  },
});

export const getUserMemory = defineRoute({
  method: "get",
  path: `${API_PREFIX}/users/:user_id/memory`,
  tag: "memory",
  summary: "A user's long-term memory",
  params: pathIds(userPathSchema),
  query: queryParams(emptyQuerySchema),
  responses: { 200: { description: "Important events, attributes, facts (with validity) and summaries.", json: memoryResponseSchema } },
  handle: async (c, { params: { user_id: userId } }, { memory }) => {
    const layers = await memory.userMemory({ tenantId: c.get("tenantId"), userId });
    return c.json(memoryResponseOf(userId, layers), 200);
  },
});

export const forgetUser = defineRoute({
  method: "delete",
  path: `${API_PREFIX}/users/:user_id`,
  tag: "memory",
  summary: "Forget a user: every layer, every session",
  params: pathIds(userPathSchema),
  query: queryParams(emptyQuerySchema),
  responses: { 200: { description: "What was deleted.", json: forgetResponseSchema } },
  handle: async (c, { params: { user_id: userId } }, { memory }) => {
    const deleted = await memory.forgetUser({ tenantId: c.get("tenantId"), userId });
    return c.json(forgetResponseSchema.parse({ user_id: userId, deleted }), 200);
  },
});
