import { snakeKeys } from "./case.js";
import { userPathSchema } from "./request-schemas.js";
import { API_PREFIX } from "./responses.js";
import { defineRoute, pathIds, queryParams } from "./route.js";
import { sessionsQuerySchema, sessionsResponseSchema } from "./session-list-schemas.js";

/** GET /v1/users/{user_id}/sessions: a user's sessions, newest activity first, a page at a time. */
export const listUserSessions = defineRoute({
  method: "get",
  path: `${API_PREFIX}/users/:user_id/sessions`,
  tag: "memory",
  summary: "A user's sessions, newest first",
  description: "Each with a title (the model's when one is configured, else the first user message), message count, first and last activity; paged by limit and offset.",
  params: pathIds(userPathSchema),
  query: queryParams(sessionsQuerySchema),
  responses: { 200: { description: "One page of the user's sessions.", json: sessionsResponseSchema } },
  handle: async (c, { params: { user_id: userId }, query }, { memory }) => {
    const page = await memory.listSessions(
      { tenantId: c.get("tenantId"), userId },
      { ...(query.limit === undefined ? {} : { limit: Number(query.limit) }), ...(query.offset === undefined ? {} : { offset: Number(query.offset) }) },
    );
    return c.json(sessionsResponseSchema.parse({ user_id: userId, ...(snakeKeys(page) as object) }), 200);
  },
});
