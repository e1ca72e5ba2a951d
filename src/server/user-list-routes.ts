import { z } from "zod";
import { MAX_USERS_PAGE } from "../memory/user-list.js";
import { snakeKeys } from "./case.js";
import { emptyQuerySchema, userPathSchema } from "./request-schemas.js";
import { API_PREFIX, error } from "./responses.js";
import { defineRoute, pathIds, queryParams } from "./route.js";

/** GET /v1/users (a tenant's users, newest activity first) and GET /v1/users/{user_id} (one of them, or 404). */

const wholeNumber = z.string().regex(/^\d{1,9}$/, "must be a whole number");

const usersQuerySchema = z
  .object({
    prefix: z.string().max(128).optional().meta({ description: "Only users whose id starts with this." }),
    limit: wholeNumber.optional().meta({ description: `Users per page, 1–${MAX_USERS_PAGE} (default 20).` }),
    offset: wholeNumber.optional().meta({ description: "Users to skip (default 0): the `next_offset` of the previous page." }),
  })
  .strict();

const userSchema = z
  .object({
    user_id: z.string(),
    last_activity_at: z.string().meta({ description: "When the user's newest stored message was said (else the last write to its memory)." }),
    session_count: z.number().int().nonnegative(),
    fact_count: z.number().int().nonnegative().meta({ description: "Current facts (superseded versions not counted)." }),
    message_count: z.number().int().nonnegative(),
  })
  .strict()
  .meta({ id: "UserOverview" });

const usersResponseSchema = z
  .object({
    users: z.array(userSchema),
    total: z.number().int().nonnegative().meta({ description: "Users (matching the prefix) in all." }),
    next_offset: z.number().int().nullable().meta({ description: "The offset of the next page; null on the last." }),
  })
  .strict()
  .meta({ id: "UserList" });

export const listUsers = defineRoute({
  method: "get",
  path: `${API_PREFIX}/users`,
  tag: "memory",
  summary: "The tenant's users, newest activity first",
  description: "Each with its last activity and counts of sessions, current facts and stored messages; narrowed by `prefix` of the id; paged by limit and offset.",
  query: queryParams(usersQuerySchema),
  responses: { 200: { description: "One page of the tenant's users.", json: usersResponseSchema } },
  handle: async (c, { query }, { memory }) => {
    const page = await memory.listUsers(c.get("tenantId"), {
      ...(query.prefix === undefined ? {} : { prefix: query.prefix }),
      ...(query.limit === undefined ? {} : { limit: Number(query.limit) }),
      ...(query.offset === undefined ? {} : { offset: Number(query.offset) }),
    });
    return c.json(usersResponseSchema.parse(snakeKeys(page)), 200);
  },
});

export const getUser = defineRoute({
  method: "get",
  path: `${API_PREFIX}/users/:user_id`,
  tag: "memory",
  summary: "One user's activity and counts",
  description: "404 USER_NOT_FOUND when nothing is stored for the user: an unknown user, where the other user routes answer empty lists.",
  params: pathIds(userPathSchema),
  query: queryParams(emptyQuerySchema),
  responses: { 200: { description: "The user.", json: userSchema }, 404: error("USER_NOT_FOUND: nothing is stored for this user.") },
  handle: async (c, { params: { user_id: userId } }, { memory }) => {
    const user = await memory.getUser({ tenantId: c.get("tenantId"), userId });
    return c.json(userSchema.parse(snakeKeys(user)), 200);
  },
});
