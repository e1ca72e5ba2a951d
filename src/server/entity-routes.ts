import { z } from "zod";
import { MAX_PAGE } from "../memory/item-schemas.js";
import { snakeKeys } from "./case.js";
import { itemDeletedSchema } from "./item-schemas.js";
import { emptyQuerySchema, userPathSchema } from "./request-schemas.js";
import { API_PREFIX, error } from "./responses.js";
import { defineRoute, pathIds, queryParams } from "./route.js";

/**
 * GET /v1/users/{user_id}/entities (the user's entity graph, paged, searchable), GET …/entities/{entity}
 * (one, with its relations over time), DELETE …/entities/{entity} (forget it, as a fact's delete does)
 * and DELETE …/entities/{entity}/relations (one relation of it).
 */

const wholeNumber = z.string().regex(/^\d{1,9}$/, "must be a whole number");

const entitiesQuerySchema = z
  .object({
    query: z.string().max(200).optional().meta({ description: "Only entities whose name, key or an alias contains this (case aside)." }),
    limit: wholeNumber.optional().meta({ description: `Entities per page, 1–${MAX_PAGE} (default 50).` }),
    offset: wholeNumber.optional().meta({ description: "Entities to skip (default 0)." }),
  })
  .strict();

const entitySummarySchema = z
  .object({
    key: z.string().meta({ description: "The entity's normalised name: its id in the graph." }),
    name: z.string(),
    kind: z.string().meta({ description: "person, place or organization." }),
    aliases: z.array(z.string()).meta({ description: 'What the user called it ("sister" in "my sister Priya").' }),
    mentions: z.number().int().nonnegative().meta({ description: "Stored messages that name it (the newest 200 are kept)." }),
    relations: z.number().int().nonnegative(),
    updated_at: z.string(),
  })
  .strict()
  .meta({ id: "EntitySummary" });

const sourceSchema = z.object({ session_id: z.string(), message_id: z.string() }).strict().meta({ id: "EntitySource" });

const entityDetailSchema = z
  .object({
    key: z.string(),
    name: z.string(),
    kind: z.string(),
    aliases: z.array(z.string()),
    updated_at: z.string(),
    mentions: z.array(sourceSchema).meta({ description: "The messages that name it, oldest first." }),
    relations: z
      .array(
        z
          .object({
            type: z.string().meta({ description: 'E.g. lives_in, works_at, sister; an inverse one starts with "~" (~lives_in on a place: who lives there).' }),
            to: z.string().meta({ description: "The other entity's key." }),
            valid_from: z.string(),
            valid_to: z.string().nullable().meta({ description: "When a newer relation of a one-valued type (lives_in, works_at, studies_at, partner) superseded it; null while current." }),
            sources: z.array(sourceSchema),
          })
          .strict(),
      )
      .meta({ description: "Oldest first." }),
  })
  .strict()
  .meta({ id: "EntityDetail" });

const entitiesResponseSchema = z.object({ entities: z.array(entitySummarySchema) }).strict().meta({ id: "EntityList" });

export const listUserEntities = defineRoute({
  method: "get",
  path: `${API_PREFIX}/users/:user_id/entities`,
  tag: "memory",
  summary: "The user's entities (people, places, organisations named in what they said)",
  description: "Most recently updated first; `query` keeps those whose name or an alias contains it; paged by limit and offset. An unknown user has none.",
  params: pathIds(userPathSchema),
  query: queryParams(entitiesQuerySchema),
  responses: { 200: { description: "One page of the user's entities.", json: entitiesResponseSchema } },
  handle: async (c, { params: { user_id: userId }, query }, { memory }) => {
    const entities = await memory.listEntities(
      { tenantId: c.get("tenantId"), userId },
      {
        ...(query.query === undefined ? {} : { query: query.query }),
        ...(query.limit === undefined ? {} : { limit: Number(query.limit) }),
        ...(query.offset === undefined ? {} : { offset: Number(query.offset) }),
      },
    );
    return c.json(entitiesResponseSchema.parse({ entities: entities.map((e) => snakeKeys(e)) }), 200);
  },
});

const entityParams = pathIds(userPathSchema.extend({ entity: z.string().min(1).max(200).meta({ description: "The entity's key or name." }) }));

const entityPath = {
  path: `${API_PREFIX}/users/:user_id/entities/:entity`,
  tag: "memory",
  params: entityParams,
  query: queryParams(emptyQuerySchema),
} as const;

export const getUserEntity = defineRoute({
  ...entityPath,
  method: "get",
  summary: "One entity, with its relations over time and the messages each came from",
  description: "`entity` is its key or its name (normalised as keys are). 404 NOT_FOUND when the user's graph holds no such entity.",
  responses: { 200: { description: "The entity.", json: entityDetailSchema }, 404: error("NOT_FOUND: no such entity in this user's memory.") },
  handle: async (c, { params: { user_id: userId, entity } }, { memory }) => {
    const found = await memory.getEntity({ tenantId: c.get("tenantId"), userId }, entity);
    return c.json(entityDetailSchema.parse(snakeKeys(found)), 200);
  },
});

export const deleteUserEntity = defineRoute({
  ...entityPath,
  method: "delete",
  summary: "Forget one entity",
  description:
    "Deletes the entity (by key or name) and cuts its name out of every layer the model reads, as deleting a fact cuts its value: stored messages (the name replaced by `[removed]`, " +
    "`redacted: true`, re-indexed), events, summaries (marked stale, as are those of the messages that named it), stored turn results, titles, the other entities' relations and every " +
    "session's window. The facts whose value names it are deleted. An alias (\"sister\") is not an entity: it names nothing to delete.",
  responses: { 200: { description: "What went: 0 entities when it was already gone (deleting twice is safe).", json: itemDeletedSchema } },
  handle: async (c, { params: { user_id: userId, entity } }, { memory }) => {
    const deleted = await memory.deleteEntity({ tenantId: c.get("tenantId"), userId }, entity);
    return c.json(itemDeletedSchema.parse({ user_id: userId, deleted: snakeKeys(deleted) }), 200);
  },
});

const relationQuerySchema = z
  .object({
    type: z.string().min(1).max(100).meta({ description: 'The relation\'s type as the entity shows it (lives_in, works_at, sister; an inverse one starts with "~").' }),
    to: z.string().min(1).max(200).meta({ description: "The other entity's key or name." }),
  })
  .strict();

export const deleteUserRelation = defineRoute({
  method: "delete",
  path: `${API_PREFIX}/users/:user_id/entities/:entity/relations`,
  tag: "memory",
  summary: "Delete one relation of an entity",
  description:
    "Deletes every version of the relation `type` from the entity to `to`, with its inverse on the other entity. When it was the current value of a one-valued type " +
    "(lives_in, works_at, studies_at, partner), the value it had superseded is current again, as when a fact's version is deleted. The messages stay as they were said: " +
    "to cut a name out of them, forget the entity; a value, delete the fact.",
  params: entityParams,
  query: queryParams(relationQuerySchema),
  responses: { 200: { description: "What went: 0 relations when it was already gone (deleting twice is safe).", json: itemDeletedSchema } },
  handle: async (c, { params: { user_id: userId, entity }, query }, { memory }) => {
    const deleted = await memory.deleteRelation({ tenantId: c.get("tenantId"), userId }, entity, query);
    return c.json(itemDeletedSchema.parse({ user_id: userId, deleted: snakeKeys(deleted) }), 200);
  },
});
