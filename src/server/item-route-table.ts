import type { ZodObject, ZodType } from "zod";
import { eventChangeSchema, textChangeSchema } from "../memory/item-schemas.js";
import {
  eventPathSchema,
  eventResponseSchema,
  eventSchema,
  eventsQuerySchema,
  itemSearchQuerySchema,
  itemSearchResponseSchema,
  factChangeBodySchema,
  factPathSchema,
  factResponseSchema,
  factSchema,
  factsQuerySchema,
  itemDeletedSchema,
  listingSchema,
  messagePathSchema,
  messageResponseSchema,
  messagesQuerySchema,
  pageQuerySchema,
  storedMessageSchema,
  summaryPathSchema,
  summaryResponseSchema,
  summarySchema,
  turnContextResponseSchema,
} from "./item-schemas.js";
import { emptyQuerySchema } from "./request-schemas.js";

/**
 * The per-item routes of the route table (routes.ts spreads them in): list, read, correct and
 * delete one fact, event, summary or stored message, and read what a turn's memory context held.
 * Made by a function of the table's shared answers, so the table stays the one place they live.
 */

export interface Answer {
  id?: string;
  description: string;
  json?: ZodType;
  headers?: ZodObject;
}

export interface Shared {
  error: (description: string) => Answer;
  bodyErrors: { 413: Answer; 415: Answer };
  prefix: string;
}

export function itemRoutes({ error, bodyErrors, prefix }: Shared) {
  const users = `${prefix}/users/:user_id`;
  const notFound = (code: string, what: string) => error(`${code}: this user has no such ${what}.`);
  const deleted = (what: string) => ({ 200: { description: `What went: 0 ${what} when it was already gone (deleting twice is safe).`, json: itemDeletedSchema } });
  const item = (path: string, params: ZodObject, kind: string, code: string, answer: ZodType, change: ZodType, changeNote: string) => ({
    get: { method: "get" as const, path, tag: "memory" as const, summary: `One ${kind}`, params, query: emptyQuerySchema, responses: { 200: { description: `The ${kind}.`, json: answer }, 404: notFound(code, kind) } },
    patch: {
      method: "patch" as const,
      path,
      tag: "memory" as const,
      summary: `Correct one ${kind}`,
      description: changeNote,
      params,
      body: change,
      responses: { 200: { description: `The ${kind} as it now reads.`, json: answer }, 404: notFound(code, kind), ...bodyErrors },
    },
    delete: { method: "delete" as const, path, tag: "memory" as const, summary: `Delete one ${kind}`, params, query: emptyQuerySchema, responses: deleted(`${kind}s`) },
  });
  const fact = item(
    `${users}/facts/:fact_id`,
    factPathSchema,
    "fact",
    "FACT_NOT_FOUND",
    factResponseSchema,
    factChangeBodySchema,
    "A new value makes a new version (`source: \"edit\"`) and closes this one; `pinned` pins or unpins; `expires_at` (ISO 8601 with a zone, or null) bounds it in time. Only the current version can be edited: " +
      "an edit of a superseded one is 409 FACT_STALE (read the fact again), unless the current version already reads as asked (a retried edit), which is answered.",
  );
  const event = item(`${users}/events/:event_id`, eventPathSchema, "event", "EVENT_NOT_FOUND", eventResponseSchema, eventChangeSchema, "Corrects the type, importance or text.");
  const summary = item(`${users}/summaries/:summary_id`, summaryPathSchema, "summary", "SUMMARY_NOT_FOUND", summaryResponseSchema, textChangeSchema, "Rewrites the text; the summary is no longer stale.");
  const message = item(
    `${users}/sessions/:session_id/messages/:message_id`,
    messagePathSchema,
    "stored message",
    "MESSAGE_NOT_FOUND",
    messageResponseSchema,
    textChangeSchema,
    "Rewrites the text and re-indexes it (text and vector); its event follows, summaries covering it are marked stale. Holds the session's turn lock.",
  );
  const list = (path: string, name: string, summaryText: string, query: ZodObject, itemSchema: ZodType, id: string) => ({
    method: "get" as const,
    path,
    tag: "memory" as const,
    summary: summaryText,
    params: factPathSchema.pick({ user_id: true }),
    query,
    responses: { 200: { description: "The page, newest first.", json: listingSchema(name, itemSchema, id) } },
  });
  return {
    listFacts: { ...list(`${users}/facts`, "facts", "A user's facts, every version, newest first", factsQuerySchema, factSchema, "FactList"), responses: { 200: { description: "Every fact (or only the current ones), newest first, with pins and sources.", json: listingSchema("facts", factSchema, "FactList") } } },
    getFact: { ...fact.get, summary: "One fact and its history", description: "Every version of its key, oldest first, with valid_from/valid_to, what superseded it and the messages it came from." },
    updateFact: {
      ...fact.patch,
      summary: "Edit, pin, unpin or bound in time one fact",
      responses: { ...fact.patch.responses, 409: error("FACT_STALE: this version was superseded; read the fact again and edit the current version. Nothing was written.") },
    },
    deleteFact: { ...fact.delete, description: "Deletes every version of the fact's key; summaries of the messages it came from are marked stale." },
    listEvents: list(`${users}/events`, "events", "A user's events, newest first", eventsQuerySchema, eventSchema, "EventList"),
    getEvent: event.get,
    updateEvent: event.patch,
    deleteEvent: event.delete,
    listSummaries: list(`${users}/summaries`, "summaries", "A user's summaries, newest first", pageQuerySchema, summarySchema, "SummaryList"),
    getSummary: summary.get,
    updateSummary: summary.patch,
    deleteSummary: summary.delete,
    listMessages: list(`${users}/messages`, "messages", "A user's stored messages, newest written first", messagesQuerySchema, storedMessageSchema, "StoredMessageList"),
    getMessage: message.get,
    updateMessage: message.patch,
    deleteMessage: {
      ...message.delete,
      description:
        "Deletes the message with its index rows and vector, the event classified from it, the facts learned from it alone (a fact they superseded is current again), " +
        "its turn's stored result; summaries covering it are marked stale, and messages that followed it now follow its parent. " +
        "It leaves the session's checkpointed window and node memory at once. Holds the session's turn lock.",
    },
    searchItems: {
      method: "get",
      path: `${users}/memory/items`,
      tag: "memory",
      summary: "Search every layer of a user's memory, with filters",
      description: "Messages, facts, events and summaries matching `q`, filtered by kind, session, time range, event type, minimum importance and field equality; each hit with the parts of its score.",
      params: factPathSchema.pick({ user_id: true }),
      query: itemSearchQuerySchema,
      responses: { 200: { description: "The hits, best first.", json: itemSearchResponseSchema } },
    },
    getTurnContext: {
      method: "get",
      path: `${users}/sessions/:session_id/messages/:message_id/context`,
      tag: "memory",
      summary: "What the memory context of this message's turn held",
      description: "\"Why did the model see this?\": the ids of the stored messages, facts, events and summaries the turn's memory context showed the model.",
      params: messagePathSchema,
      query: emptyQuerySchema,
      responses: { 200: { description: "The turn's memory context, by layer.", json: turnContextResponseSchema }, 404: notFound("TURN_CONTEXT_NOT_FOUND", "answered turn") },
    },
  } as const;
}
