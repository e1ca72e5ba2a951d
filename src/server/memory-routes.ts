import type { Context } from "hono";
import { MemoryGraphError } from "../errors.js";
import type { RouteDeps, ServerEnv } from "./context.js";
import { emptyQuerySchema, parseRequest, userQuerySchema } from "./request-schemas.js";
import { forgetResponseSchema, memoryResponseOf, messagesResponseOf } from "./response-schemas.js";
import type { RouteHandlers } from "./routes.js";
import { pathId, queryOf } from "./url-params.js";

/**
 * Reading and forgetting memory, through the facade. Every scope is the key's tenant plus ids
 * from the path and query, so a key can only ever name its own tenant's data.
 */
export function memoryHandlers(deps: RouteDeps): Pick<RouteHandlers, "listSessionMessages" | "getUserMemory" | "forgetUser" | "forgetSession"> {
  const { memory } = deps;

  const listSessionMessages = async (c: Context<ServerEnv>) => {
    const sessionId = pathId(c, "session_id");
    const { user_id: userId } = parseRequest(userQuerySchema, queryOf(c), "query");
    const thread = await memory.sessionMessages({ tenantId: c.get("tenantId"), userId, sessionId });
    if (!thread) throw new MemoryGraphError("SESSION_NOT_FOUND", "no such session for this user", { kind: "user" });
    return c.json(messagesResponseOf(userId, sessionId, thread), 200);
  };

  const getUserMemory = async (c: Context<ServerEnv>) => {
    const userId = pathId(c, "user_id");
    parseRequest(emptyQuerySchema, queryOf(c), "query");
    const layers = await memory.userMemory({ tenantId: c.get("tenantId"), userId });
    return c.json(memoryResponseOf(userId, layers), 200);
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
