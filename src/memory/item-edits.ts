import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError, type ErrorCode } from "../errors.js";
import { truncate } from "./clip.js";
import { EVENT_TEXT_CHARS } from "./events.js";
import { namespaces } from "./namespaces.js";
import type { EventRecord, SummaryRecord } from "./records.js";
import type { MemoryScope } from "./scope.js";
import { newestItems, valuesOf } from "./store-io.js";

/**
 * One event or one summary, by id: listed newest first a page at a time, read, corrected and
 * deleted. Both are stored unindexed (read by recency, never searched), so a correction has no
 * index to rebuild; a delete is the store's delete, which takes any index rows with it.
 */

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/** A page of a listing: at most `limit` items after the first `offset`, newest written first. */
export interface Page {
  limit: number;
  offset: number;
}

/** What a correction of an event may change. */
export interface EventChange {
  type?: string;
  importance?: number;
  text?: string;
}

/** The stored record `id` of `namespace`, or a 404-class error of `code`. */
export async function getRecord<T>(store: BaseStore, namespace: string[], id: string, code: Extract<ErrorCode, `${string}_NOT_FOUND`>): Promise<T> {
  const item = await store.get(namespace, id);
  if (!item) throw new MemoryGraphError(code, `no ${code.split("_")[0]?.toLowerCase()} ${id} for this user`, { kind: "user" });
  return item.value as T;
}

/** A page of the user's events, newest written first; `type` keeps one event type. */
export async function listEvents(store: BaseStore, scope: UserScope, page: Page, type?: string): Promise<EventRecord[]> {
  const filter = type === undefined ? undefined : { type };
  return valuesOf<EventRecord>(await newestItems(store, namespaces.events(scope), { ...page, filter }));
}

export function getEvent(store: BaseStore, scope: UserScope, id: string): Promise<EventRecord> {
  return getRecord<EventRecord>(store, namespaces.events(scope), id, "EVENT_NOT_FOUND");
}

/** Corrects an event's type, importance or text (cut to `EVENT_TEXT_CHARS`); EVENT_NOT_FOUND when there is none. */
export async function updateEvent(store: BaseStore, scope: UserScope, id: string, change: EventChange): Promise<EventRecord> {
  const event = await getEvent(store, scope, id);
  const updated: EventRecord = {
    ...event,
    ...(change.type === undefined ? {} : { type: change.type }),
    ...(change.importance === undefined ? {} : { importance: change.importance }),
    ...(change.text === undefined ? {} : { text: truncate(change.text, EVENT_TEXT_CHARS) }),
  };
  await store.put(namespaces.events(scope), id, { ...updated }, false);
  return updated;
}

/** Deletes one event; 0 when there was none (deleting twice is safe). */
export async function deleteRecord(store: BaseStore, namespace: string[], id: string): Promise<number> {
  if (!(await store.get(namespace, id))) return 0;
  await store.delete(namespace, id);
  return 1;
}

/** A page of the user's summaries (every session), newest written first, stale ones included and marked. */
export async function listSummaries(store: BaseStore, scope: UserScope, page: Page): Promise<SummaryRecord[]> {
  return valuesOf<SummaryRecord>(await newestItems(store, namespaces.summaries(scope), page));
}

export function getSummary(store: BaseStore, scope: UserScope, id: string): Promise<SummaryRecord> {
  return getRecord<SummaryRecord>(store, namespaces.summaries(scope), id, "SUMMARY_NOT_FOUND");
}

/** Rewrites a summary's text (a person's correction, no longer stale); SUMMARY_NOT_FOUND when there is none. */
export async function updateSummary(store: BaseStore, scope: UserScope, id: string, text: string): Promise<SummaryRecord> {
  const { stale: _, ...summary } = await getSummary(store, scope, id);
  const updated: SummaryRecord = { ...summary, text };
  await store.put(namespaces.summaries(scope), id, { ...updated }, false);
  return updated;
}
