import type { Hono } from "hono";
import { importantEvents } from "../memory/events.js";
import { loadFacts } from "../memory/facts.js";
import { forgetSession, forgetUser } from "../memory/forget.js";
import { latestSummaries } from "../memory/summaries.js";
import { loadThread } from "../memory/transcript.js";
import type { RouteDeps, ServerEnv } from "./context.js";
import { HttpError } from "./http-error.js";
import { parseRequest, pathId, queryOf, userQuerySchema } from "./request-schemas.js";
import { forgetResponseSchema, memoryResponseOf, messagesResponseOf } from "./response-schemas.js";

const MAX_LISTED = 1000;

/**
 * Reading and forgetting memory. Every scope is the key's tenant plus ids from the path and
 * query, so a key can only ever name its own tenant's data.
 */
export function addMemoryRoutes(app: Hono<ServerEnv>, deps: RouteDeps): void {
  const { memory } = deps;

  app.get("/v1/sessions/:sessionId/messages", async (c) => {
    const sessionId = pathId("session_id", c.req.url, 2);
    const { user_id: userId } = parseRequest(userQuerySchema, queryOf(c.req.url), "query");
    const scope = { tenantId: c.get("tenantId"), userId, sessionId };
    const leaf = (await memory.sessionState(scope))?.session.lastMessageId;
    if (!leaf) throw new HttpError(404, "SESSION_NOT_FOUND", "no such session for this user");
    const thread = await loadThread(memory.persistence.store, scope, leaf);
    return c.json(messagesResponseOf(userId, sessionId, thread), 200);
  });

  app.get("/v1/users/:userId/memory", async (c) => {
    const userId = pathId("user_id", c.req.url, 2);
    parseRequest(userQuerySchema.omit({ user_id: true }), queryOf(c.req.url), "query");
    const scope = { tenantId: c.get("tenantId"), userId };
    const store = memory.persistence.store;
    const [events, facts, summaries] = await Promise.all([
      importantEvents(store, scope, { minImportance: 0, limit: MAX_LISTED, window: MAX_LISTED }),
      loadFacts(store, scope),
      latestSummaries(store, scope, MAX_LISTED),
    ]);
    return c.json(memoryResponseOf(userId, { events, facts, summaries }), 200);
  });

  app.delete("/v1/users/:userId", async (c) => {
    const userId = pathId("user_id", c.req.url, 2);
    parseRequest(userQuerySchema.omit({ user_id: true }), queryOf(c.req.url), "query");
    const deleted = await forgetUser(memory.persistence, { tenantId: c.get("tenantId"), userId });
    return c.json(forgetResponseSchema.parse({ user_id: userId, deleted }), 200);
  });

  app.delete("/v1/sessions/:sessionId", async (c) => {
    const sessionId = pathId("session_id", c.req.url, 2);
    const { user_id: userId } = parseRequest(userQuerySchema, queryOf(c.req.url), "query");
    const deleted = await forgetSession(memory.persistence, { tenantId: c.get("tenantId"), userId, sessionId });
    return c.json(forgetResponseSchema.parse({ user_id: userId, session_id: sessionId, deleted }), 200);
  });
}
