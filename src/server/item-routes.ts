import type { Context } from "hono";
import { invalidInput } from "../errors.js";
import type { ItemSearchRequest } from "../memory/item-search.js";
import { snakeKeys } from "./case.js";
import type { RouteDeps, ServerEnv } from "./context.js";
import { eventChangeSchema, textChangeSchema } from "../memory/item-schemas.js";
import { readJsonBody } from "./json-body.js";
import { eventsQuerySchema, factChangeBodySchema, factsQuerySchema, itemSearchQuerySchema, messagesQuerySchema, pageQuerySchema } from "./item-schemas.js";
import { emptyQuerySchema, parseRequest } from "./request-schemas.js";
import type { RouteHandlers } from "./routes.js";
import { pathId, queryOf } from "./url-params.js";

type ItemOperation =
  | "listFacts" | "getFact" | "updateFact" | "deleteFact"
  | "listEvents" | "getEvent" | "updateEvent" | "deleteEvent"
  | "listSummaries" | "getSummary" | "updateSummary" | "deleteSummary"
  | "listMessages" | "getMessage" | "updateMessage" | "deleteMessage"
  | "getTurnContext" | "searchItems";

/** A JSON value sent in a query parameter; INVALID_INPUT naming `metadata` when it is not JSON. */
function jsonQuery(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidInput("metadata", "must be a JSON object");
  }
}

/** An item id from the path: checked by the library (any non-empty string of at most 512 characters). */
const asIs = (_field: string, value: string) => value;

/**
 * One item at a time over HTTP, through the facade: the tenant is the key's, the user (and the
 * session of a message) from the path. Bodies and queries are checked here against the route's
 * schemas, then handed to the library, which checks ids and answers 404/409 by its error codes.
 */
export function itemHandlers(deps: RouteDeps): Pick<RouteHandlers, ItemOperation> {
  const { memory } = deps;
  const userOf = (c: Context<ServerEnv>) => ({ tenantId: c.get("tenantId"), userId: pathId(c, "user_id") });
  const sessionOf = (c: Context<ServerEnv>) => ({ ...userOf(c), sessionId: pathId(c, "session_id") });
  const noQuery = (c: Context<ServerEnv>) => parseRequest(emptyQuerySchema, queryOf(c), "query");
  const body = async <T>(c: Context<ServerEnv>, schema: Parameters<typeof parseRequest<T>>[0]) => parseRequest(schema, await readJsonBody(c, deps.bodyLimitBytes));
  const pageOf = (query: { limit?: string; offset?: string }) => ({
    ...(query.limit === undefined ? {} : { limit: Number(query.limit) }),
    ...(query.offset === undefined ? {} : { offset: Number(query.offset) }),
  });
  const answer = (c: Context<ServerEnv>, userId: string, fields: Record<string, unknown>) => c.json({ user_id: userId, ...(snakeKeys(fields) as object) }, 200);
  const listed = (c: Context<ServerEnv>, userId: string, name: string, items: unknown[], page: { limit?: number; offset?: number }) =>
    c.json({ user_id: userId, [name]: snakeKeys(items), limit: page.limit ?? 50, offset: page.offset ?? 0 }, 200);

  return {
    listFacts: async (c) => {
      const user = userOf(c);
      const { current } = parseRequest(factsQuerySchema, queryOf(c), "query");
      return c.json({ user_id: user.userId, facts: snakeKeys(await memory.listFacts(user, { current: current === "true" })) }, 200);
    },
    getFact: async (c) => {
      const user = userOf(c);
      noQuery(c);
      return answer(c, user.userId, await memory.getFact(user, pathId(c, "fact_id", asIs)));
    },
    updateFact: async (c) => {
      const user = userOf(c);
      const factId = pathId(c, "fact_id", asIs);
      const { expires_at: expiresAt, ...change } = await body(c, factChangeBodySchema);
      return answer(c, user.userId, { fact: await memory.updateFact(user, factId, { ...change, ...(expiresAt === undefined ? {} : { expiresAt }) }) });
    },
    deleteFact: async (c) => {
      const user = userOf(c);
      noQuery(c);
      return answer(c, user.userId, { deleted: await memory.deleteFact(user, pathId(c, "fact_id", asIs)) });
    },
    listEvents: async (c) => {
      const user = userOf(c);
      const query = parseRequest(eventsQuerySchema, queryOf(c), "query");
      const page = pageOf(query);
      return listed(c, user.userId, "events", await memory.listEvents(user, { ...page, ...(query.type === undefined ? {} : { type: query.type }) }), page);
    },
    getEvent: async (c) => {
      const user = userOf(c);
      noQuery(c);
      return answer(c, user.userId, { event: await memory.getEvent(user, pathId(c, "event_id", asIs)) });
    },
    updateEvent: async (c) => {
      const user = userOf(c);
      const eventId = pathId(c, "event_id", asIs);
      return answer(c, user.userId, { event: await memory.updateEvent(user, eventId, await body(c, eventChangeSchema)) });
    },
    deleteEvent: async (c) => {
      const user = userOf(c);
      noQuery(c);
      return answer(c, user.userId, { deleted: await memory.deleteEvent(user, pathId(c, "event_id", asIs)) });
    },
    listSummaries: async (c) => {
      const user = userOf(c);
      const page = pageOf(parseRequest(pageQuerySchema, queryOf(c), "query"));
      return listed(c, user.userId, "summaries", await memory.listSummaries(user, page), page);
    },
    getSummary: async (c) => {
      const user = userOf(c);
      noQuery(c);
      return answer(c, user.userId, { summary: await memory.getSummary(user, pathId(c, "summary_id", asIs)) });
    },
    updateSummary: async (c) => {
      const user = userOf(c);
      const summaryId = pathId(c, "summary_id", asIs);
      return answer(c, user.userId, { summary: await memory.updateSummary(user, summaryId, await body(c, textChangeSchema)) });
    },
    deleteSummary: async (c) => {
      const user = userOf(c);
      noQuery(c);
      return answer(c, user.userId, { deleted: await memory.deleteSummary(user, pathId(c, "summary_id", asIs)) });
    },
    listMessages: async (c) => {
      const user = userOf(c);
      const query = parseRequest(messagesQuerySchema, queryOf(c), "query");
      const page = pageOf(query);
      const scope = query.session_id === undefined ? user : { ...user, sessionId: query.session_id };
      return listed(c, user.userId, "messages", await memory.listMessages(scope, page), page);
    },
    getMessage: async (c) => {
      const scope = sessionOf(c);
      noQuery(c);
      return answer(c, scope.userId, { message: await memory.getMessage(scope, pathId(c, "message_id", asIs)) });
    },
    updateMessage: async (c) => {
      const scope = sessionOf(c);
      const messageId = pathId(c, "message_id", asIs);
      return answer(c, scope.userId, { message: await memory.updateMessage(scope, messageId, await body(c, textChangeSchema)) });
    },
    deleteMessage: async (c) => {
      const scope = sessionOf(c);
      noQuery(c);
      return answer(c, scope.userId, { deleted: await memory.deleteMessage(scope, pathId(c, "message_id", asIs)) });
    },
    searchItems: async (c) => {
      const user = userOf(c);
      const query = parseRequest(itemSearchQuerySchema, queryOf(c), "query");
      const hits = await memory.searchItems({
        ...user,
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
      return c.json({ user_id: user.userId, query: query.q, hits: snakeKeys(hits) }, 200);
    },
    getTurnContext: async (c) => {
      const scope = sessionOf(c);
      noQuery(c);
      return answer(c, scope.userId, { context: await memory.turnContext(scope, pathId(c, "message_id", asIs)) });
    },
  };
}
