import type { Context } from "hono";
import { importantEvents } from "../memory/events.js";
import { loadFacts } from "../memory/facts.js";
import { latestSummaries } from "../memory/summaries.js";
import { loadThread } from "../memory/transcript.js";
import type { RouteDeps, ServerEnv } from "./context.js";
import { HttpError } from "./http-error.js";
import { emptyQuerySchema, parseRequest, userQuerySchema } from "./request-schemas.js";
import { forgetResponseSchema, memoryResponseOf, messagesResponseOf } from "./response-schemas.js";
import type { RouteHandlers } from "./routes.js";
import { pathId, queryOf } from "./url-params.js";

const MAX_LISTED = 1000;

/**
 * Reading and forgetting memory. Every scope is the key's tenant plus ids from the path and
 * query, so a key can only ever name its own tenant's data.
 */
export function memoryHandlers(deps: RouteDeps): Pick<RouteHandlers, "listSessionMessages" | "getUserMemory" | "forgetUser" | "forgetSession"> {
  const { memory } = deps;

  const listSessionMessages = async (c: Context<ServerEnv>) => {
    const sessionId = pathId(c, "session_id");
    const { user_id: userId } = parseRequest(userQuerySchema, queryOf(c), "query");
    const scope = { tenantId: c.get("tenantId"), userId, sessionId };
    const leaf = (await memory.sessionState(scope))?.session.lastMessageId;
    if (!leaf) throw new HttpError(404, "SESSION_NOT_FOUND", "no such session for this user");
    const thread = await loadThread(memory.persistence.store, scope, leaf);
    return c.json(messagesResponseOf(userId, sessionId, thread), 200);
  };

  const getUserMemory = async (c: Context<ServerEnv>) => {
    const userId = pathId(c, "user_id");
    parseRequest(emptyQuerySchema, queryOf(c), "query");
    const scope = { tenantId: c.get("tenantId"), userId };
    const store = memory.persistence.store;
    const [events, facts, summaries] = await Promise.all([
      importantEvents(store, scope, { minImportance: 0, limit: MAX_LISTED, window: MAX_LISTED }),
      loadFacts(store, scope),
      latestSummaries(store, scope, MAX_LISTED),
    ]);
    return c.json(memoryResponseOf(userId, { events, facts, summaries }), 200);
  };

  const forgetUserRoute = async (c: Context<ServerEnv>) => {
    const userId = pathId(c, "user_id");
    parseRequest(emptyQuerySchema, queryOf(c), "query");
    const deleted = await memory.forgetUser({ tenantId: c.get("tenantId"), userId });
    return c.json(forgetResponseSchema.parse({ user_id: userId, deleted }), 200);
  };

  const forgetSessionRoute = async (c: Context<ServerEnv>) => {
    const sessionId = pathId(c, "session_id");
    const { user_id: userId } = parseRequest(userQuerySchema, queryOf(c), "query");
    const { restoredFacts, ...deleted } = await memory.forgetSession({ tenantId: c.get("tenantId"), userId, sessionId });
    return c.json(forgetResponseSchema.parse({ user_id: userId, session_id: sessionId, deleted, restored: { facts: restoredFacts } }), 200);
  };

  return { listSessionMessages, getUserMemory, forgetUser: forgetUserRoute, forgetSession: forgetSessionRoute };
}
