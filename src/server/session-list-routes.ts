import type { Context } from "hono";
import { snakeKeys } from "./case.js";
import type { RouteDeps, ServerEnv } from "./context.js";
import { parseRequest } from "./request-schemas.js";
import { sessionsQuerySchema, sessionsResponseSchema } from "./session-list-schemas.js";
import type { RouteHandlers } from "./routes.js";
import { pathId, queryOf } from "./url-params.js";

/** GET /v1/users/{user_id}/sessions: a user's sessions, newest activity first, a page at a time. */

export function sessionListHandlers(deps: RouteDeps): Pick<RouteHandlers, "listUserSessions"> {
  const listUserSessions = async (c: Context<ServerEnv>) => {
    const userId = pathId(c, "user_id");
    const query = parseRequest(sessionsQuerySchema, queryOf(c), "query");
    const page = await deps.memory.listSessions(
      { tenantId: c.get("tenantId"), userId },
      { ...(query.limit === undefined ? {} : { limit: Number(query.limit) }), ...(query.offset === undefined ? {} : { offset: Number(query.offset) }) },
    );
    return c.json(sessionsResponseSchema.parse({ user_id: userId, ...(snakeKeys(page) as object) }), 200);
  };
  return { listUserSessions };
}
