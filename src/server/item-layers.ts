import type { z, ZodObject, ZodType } from "zod";
import type { MemoryGraph } from "../app/create-memory-graph.js";
import { eventChangeSchema, textChangeSchema } from "../memory/item-schemas.js";
import type { MemoryScope } from "../memory/scope.js";
import {
  eventPathSchema,
  eventResponseSchema,
  eventSchema,
  eventsQuerySchema,
  factChangeBodySchema,
  factDeleteQuerySchema,
  factPathSchema,
  factResponseSchema,
  factSchema,
  factsQuerySchema,
  messagePathSchema,
  messageResponseSchema,
  messagesQuerySchema,
  pageQuerySchema,
  storedMessageSchema,
  summaryPathSchema,
  summaryResponseSchema,
  summarySchema,
} from "./item-schemas.js";
import { API_PREFIX, error } from "./responses.js";
import type { ResponseSpec } from "./route.js";

/**
 * The four layers a person can read and correct item by item (facts, events, summaries, stored
 * messages): for each, what its routes are called, where they are, what they take and answer,
 * and the facade's calls. item-routes.ts makes the same four routes of each.
 */

/** Routes under a user. */
export const USERS = `${API_PREFIX}/users/:user_id`;
const users = USERS;

/** A listing's query, as sent (strings). */
export type Query = Record<string, string | undefined>;
export type Page = { limit?: number; offset?: number };
/** The user, and the session of a message, from the path: a key only ever names its own tenant's items. */
export type Scope = Pick<MemoryScope, "tenantId" | "userId"> & { sessionId?: string };
/** Words of a route that replace the made ones. */
type Words = { summary?: string; description?: string };

/** One layer: its routes' paths, schemas and words, and the facade's calls for it. */
export interface Layer {
  /** The answer's field and the operation ids' noun (`getFact`); `plural` names the listing (`listFacts`, `facts`). */
  name: "fact" | "event" | "summary" | "message";
  plural: "Facts" | "Events" | "Summaries" | "Messages";
  words: string;
  path: string;
  params: ZodObject;
  /** The item id's path parameter. */
  id: string;
  notFound: string;
  answer: ZodType;
  change: ZodType;
  changeNote: string;
  list: { path: string; query: ZodObject; item: ZodType; component: string; summary: string; paged: boolean; description?: string };
  listOf(memory: MemoryGraph, user: Scope, query: Query, page: Page): Promise<unknown[]>;
  read(memory: MemoryGraph, scope: Scope, id: string): Promise<object>;
  update(memory: MemoryGraph, scope: Scope, id: string, change: never): Promise<unknown>;
  remove(memory: MemoryGraph, scope: Scope, id: string, query: Query): Promise<unknown>;
  /** The delete's query (default: none). */
  removeQuery?: ZodObject;
  own?: { get?: Words; update?: Words & { 409?: ResponseSpec }; delete?: Words };
}

/** A stored message's scope: its session is in every message route's path. */
export const session = (scope: Scope): MemoryScope => ({ ...scope, sessionId: scope.sessionId ?? "" });

export const FACTS: Layer = {
  name: "fact",
  plural: "Facts",
  words: "fact",
  path: `${users}/facts/:fact_id`,
  params: factPathSchema,
  id: "fact_id",
  notFound: "FACT_NOT_FOUND",
  answer: factResponseSchema,
  change: factChangeBodySchema,
  changeNote:
    "A new value makes a new version (`source: \"edit\"`) and closes this one; `pinned` pins or unpins; `expires_at` (ISO 8601 with a zone, or null) bounds it in time. Only the current version can be edited: " +
    "an edit of a superseded one is 409 FACT_STALE (read the fact again), unless the current version already reads as asked (a retried edit), which is answered.",
  list: { path: `${users}/facts`, query: factsQuerySchema, item: factSchema, component: "FactList", summary: "A user's facts, every version, newest first", paged: false, description: "Every fact (or only the current ones), newest first, with pins and sources." },
  listOf: (memory, user, query) => memory.listFacts(user, { current: query.current === "true" }),
  read: (memory, scope, id) => memory.getFact(scope, id),
  update: (memory, scope, id, { expires_at: expiresAt, ...change }: z.output<typeof factChangeBodySchema>) =>
    memory.updateFact(scope, id, { ...change, ...(expiresAt === undefined ? {} : { expiresAt }) }),
  remove: (memory, scope, id, query) => memory.deleteFact(scope, id, query.versions === undefined ? {} : { versions: query.versions as "one" | "all" }),
  removeQuery: factDeleteQuerySchema,
  own: {
    get: { summary: "One fact and its history", description: "Every version of its key, oldest first, with valid_from/valid_to, what superseded it and the messages it came from." },
    update: {
      summary: "Edit, pin, unpin or bound in time one fact",
      409: error("FACT_STALE: this version was superseded; read the fact again and edit the current version. Nothing was written."),
    },
    delete: {
      description:
        "Deletes this version (`versions=all`: every version of its key) and cuts its value out of every layer the model reads: stored messages (the value replaced by `[removed]`, " +
        "`redacted: true`, re-indexed), events, summaries (marked stale, as are those of the messages it came from), stored turn results, titles and every session's window. " +
        "A value another remaining fact states is kept. Deleting one version never makes another current.",
    },
  },
};

export const EVENTS: Layer = {
  name: "event",
  plural: "Events",
  words: "event",
  path: `${users}/events/:event_id`,
  params: eventPathSchema,
  id: "event_id",
  notFound: "EVENT_NOT_FOUND",
  answer: eventResponseSchema,
  change: eventChangeSchema,
  changeNote: "Corrects the type, importance or text.",
  list: { path: `${users}/events`, query: eventsQuerySchema, item: eventSchema, component: "EventList", summary: "A user's events, newest first", paged: true },
  listOf: (memory, user, query, page) => memory.listEvents(user, { ...page, ...(query.type === undefined ? {} : { type: query.type }) }),
  read: async (memory, scope, id) => ({ event: await memory.getEvent(scope, id) }),
  update: (memory, scope, id, change) => memory.updateEvent(scope, id, change),
  remove: (memory, scope, id) => memory.deleteEvent(scope, id),
};

export const SUMMARIES: Layer = {
  name: "summary",
  plural: "Summaries",
  words: "summary",
  path: `${users}/summaries/:summary_id`,
  params: summaryPathSchema,
  id: "summary_id",
  notFound: "SUMMARY_NOT_FOUND",
  answer: summaryResponseSchema,
  change: textChangeSchema,
  changeNote: "Rewrites the text; the summary is no longer stale.",
  list: { path: `${users}/summaries`, query: pageQuerySchema, item: summarySchema, component: "SummaryList", summary: "A user's summaries, newest first", paged: true },
  listOf: (memory, user, _query, page) => memory.listSummaries(user, page),
  read: async (memory, scope, id) => ({ summary: await memory.getSummary(scope, id) }),
  update: (memory, scope, id, change) => memory.updateSummary(scope, id, change),
  remove: (memory, scope, id) => memory.deleteSummary(scope, id),
};

export const MESSAGES: Layer = {
  name: "message",
  plural: "Messages",
  words: "stored message",
  path: `${users}/sessions/:session_id/messages/:message_id`,
  params: messagePathSchema,
  id: "message_id",
  notFound: "MESSAGE_NOT_FOUND",
  answer: messageResponseSchema,
  change: textChangeSchema,
  changeNote: "Rewrites the text and re-indexes it (text and vector); its event follows, summaries covering it are marked stale. Holds the session's turn lock.",
  list: { path: `${users}/messages`, query: messagesQuerySchema, item: storedMessageSchema, component: "StoredMessageList", summary: "A user's stored messages, newest written first", paged: true },
  listOf: (memory, user, query, page) => memory.listMessages(query.session_id === undefined ? user : { ...user, sessionId: query.session_id }, page),
  read: async (memory, scope, id) => ({ message: await memory.getMessage(session(scope), id) }),
  update: (memory, scope, id, change) => memory.updateMessage(session(scope), id, change),
  remove: (memory, scope, id) => memory.deleteMessage(session(scope), id),
  own: {
    delete: {
      description:
        "Deletes the message with its index rows and vector, the event classified from it, the facts learned from it alone (a fact they superseded is current again), " +
        "its turn's stored result; summaries covering it are marked stale, and messages that followed it now follow its parent. " +
        "It leaves the session's checkpointed window and node memory at once. Holds the session's turn lock.",
    },
  },
};
