import type { Context } from "hono";
import type { ZodObject } from "zod";
import { parseJsonInput } from "../json-bounds.js";
import type { ItemSearchRequest } from "../memory/item-search.js";
import { snakeKeys } from "./case.js";
import type { ServerEnv } from "./context.js";
import { EVENTS, FACTS, MESSAGES, session, SUMMARIES, USERS, type Layer, type Page, type Query, type Scope } from "./item-layers.js";
import { factPathSchema, itemDeletedSchema, itemSearchQuerySchema, itemSearchResponseSchema, listingSchema, turnContextResponseSchema } from "./item-schemas.js";
import { emptyQuerySchema } from "./request-schemas.js";
import { BODY_ERRORS, error } from "./responses.js";
import { defineRoute, jsonBody, pathIds, pathParams, queryParams, type RequestPart } from "./route.js";

/**
 * One item at a time over HTTP, through the facade: list, read, correct and delete one fact,
 * event, summary or stored message (the same four routes for each layer of item-layers.ts),
 * search every layer, and read what a turn's memory context held. The tenant is the key's, the
 * user (and the session of a message) from the path; the library checks item ids and answers
 * 404/409 by its error codes.
 */

/** The item's scope and id from the path, decoded and checked by the layer's schema. */
function itemPath(layer: Layer): RequestPart<{ scope: Scope; id: string }, ZodObject> {
  return {
    schema: layer.params,
    parse: (c) => {
      const ids = pathParams(c, layer.params) as Record<string, string>;
      const scope = { tenantId: c.get("tenantId"), userId: String(ids.user_id), ...(ids.session_id === undefined ? {} : { sessionId: ids.session_id }) };
      return { scope, id: String(ids[layer.id]) };
    },
  };
}

const userPath = pathIds(factPathSchema.pick({ user_id: true }));
const noQuery = queryParams(emptyQuerySchema);

/** An item route's answer: the user, and `fields` in snake_case. */
const answer = (c: Context<ServerEnv>, scope: Scope, fields: object) => c.json({ user_id: scope.userId, ...(snakeKeys(fields) as object) }, 200);

/** A layer's listing: a page of items, newest first. */
function listRoute(layer: Layer) {
  const { list } = layer;
  const field = layer.plural.toLowerCase();
  return defineRoute({
    method: "get",
    path: list.path,
    tag: "memory",
    summary: list.summary,
    params: userPath,
    query: queryParams(list.query),
    responses: { 200: { description: list.description ?? "The page, newest first.", json: listingSchema(field, list.item, list.component) } },
    handle: async (c, { params, query }, { memory }) => {
      const page = pageOf(query as Query);
      const items = await layer.listOf(memory, { tenantId: c.get("tenantId"), userId: params.user_id }, query as Query, page);
      return c.json({ user_id: params.user_id, [field]: snakeKeys(items), ...(list.paged ? { limit: page.limit ?? 50, offset: page.offset ?? 0 } : {}) }, 200);
    },
  });
}

type Routes = ReturnType<typeof layerRoutes>;

/** The listing, read, correction and delete routes of one layer. */
function layerRoutes(layer: Layer) {
  const notFound = error(`${layer.notFound}: this user has no such ${layer.words}.`);
  const { 409: conflict, ...updateWords } = layer.own?.update ?? {};
  const item = { path: layer.path, tag: "memory", params: itemPath(layer) } as const;
  const get = defineRoute({
    ...item,
    method: "get",
    summary: `One ${layer.words}`,
    ...layer.own?.get,
    query: noQuery,
    responses: { 200: { description: `The ${layer.words}.`, json: layer.answer }, 404: notFound },
    handle: async (c, { params: { scope, id } }, { memory }) => answer(c, scope, await layer.read(memory, scope, id)),
  });
  const update = defineRoute({
    ...item,
    method: "patch",
    summary: `Correct one ${layer.words}`,
    description: layer.changeNote,
    ...updateWords,
    body: jsonBody(layer.change),
    responses: { 200: { description: `The ${layer.words} as it now reads.`, json: layer.answer }, 404: notFound, ...BODY_ERRORS, ...(conflict ? { 409: conflict } : {}) },
    handle: async (c, { params: { scope, id }, body }, { memory }) => answer(c, scope, { [layer.name]: await layer.update(memory, scope, id, body as never) }),
  });
  const remove = defineRoute({
    ...item,
    method: "delete",
    summary: `Delete one ${layer.words}`,
    ...layer.own?.delete,
    query: layer.removeQuery ? queryParams(layer.removeQuery) : noQuery,
    responses: { 200: { description: `What went: 0 ${layer.words}s when it was already gone (deleting twice is safe).`, json: itemDeletedSchema } },
    handle: async (c, { params: { scope, id }, query }, { memory }) => answer(c, scope, { deleted: await layer.remove(memory, scope, id, query as Query) }),
  });
  return { list: listRoute(layer), get, update, remove };
}

/** A JSON value sent in a query parameter, held to the rules of a JSON body (`parseJsonInput`) under the field `metadata`. */
function jsonQuery(text: string): unknown {
  return parseJsonInput(text, "metadata");
}

function pageOf(query: Query): Page {
  return { ...(query.limit === undefined ? {} : { limit: Number(query.limit) }), ...(query.offset === undefined ? {} : { offset: Number(query.offset) }) };
}

export const searchItems = defineRoute({
  method: "get",
  path: `${USERS}/memory/items`,
  tag: "memory",
  summary: "Search every layer of a user's memory, with filters",
  description: "Messages, facts, events and summaries matching `q`, filtered by kind, session, time range, event type, minimum importance and field equality; each hit with the parts of its score.",
  params: userPath,
  query: queryParams(itemSearchQuerySchema),
  responses: { 200: { description: "The hits, best first.", json: itemSearchResponseSchema } },
  handle: async (c, { params: { user_id: userId }, query }, { memory }) => {
    const hits = await memory.searchItems({
      tenantId: c.get("tenantId"),
      userId,
      query: query.q,
      ...(query.kinds === undefined ? {} : { kinds: query.kinds.split(",") as ItemSearchRequest["kinds"] }),
      ...(query.session_id === undefined ? {} : { sessionId: query.session_id }),
      ...(query.from === undefined ? {} : { from: query.from }),
      ...(query.to === undefined ? {} : { to: query.to }),
      ...(query.event_type === undefined ? {} : { eventType: query.event_type }),
      ...(query.min_importance === undefined ? {} : { minImportance: Number(query.min_importance) }),
      ...(query.metadata === undefined ? {} : { metadata: jsonQuery(query.metadata) as ItemSearchRequest["metadata"] }),
      ...(query.limit === undefined ? {} : { limit: Number(query.limit) }),
    });
    return c.json({ user_id: userId, query: query.q, hits: snakeKeys(hits) }, 200);
  },
});

export const getTurnContext = defineRoute({
  method: "get",
  path: `${USERS}/sessions/:session_id/messages/:message_id/context`,
  tag: "memory",
  summary: "What the memory context of this message's turn held",
  description: "\"Why did the model see this?\": the ids of the stored messages, facts, events and summaries the turn's memory context showed the model.",
  params: itemPath(MESSAGES),
  query: noQuery,
  responses: {
    200: { description: "The turn's memory context, by layer.", json: turnContextResponseSchema },
    404: error("TURN_CONTEXT_NOT_FOUND: this user has no such answered turn."),
  },
  handle: async (c, { params: { scope, id } }, { memory }) => answer(c, scope, { context: await memory.turnContext(session(scope), id) }),
});

const [facts, events, summaries, messages] = [FACTS, EVENTS, SUMMARIES, MESSAGES].map(layerRoutes) as [Routes, Routes, Routes, Routes];

/** Every layer's routes by operation id, in the document's order: facts, events, summaries, stored messages. */
export const layerItemRoutes = {
  listFacts: facts.list,
  getFact: facts.get,
  updateFact: facts.update,
  deleteFact: facts.remove,
  listEvents: events.list,
  getEvent: events.get,
  updateEvent: events.update,
  deleteEvent: events.remove,
  listSummaries: summaries.list,
  getSummary: summaries.get,
  updateSummary: summaries.update,
  deleteSummary: summaries.remove,
  listMessages: messages.list,
  getMessage: messages.get,
  updateMessage: messages.update,
  deleteMessage: messages.remove,
};
