import type { BaseStore, PutOperation } from "@langchain/langgraph-checkpoint";
import { applyEventRetention, type RetentionPolicy } from "./retention-policy.js";
import { truncate } from "./clip.js";
import { namespaces } from "./namespaces.js";
import type { EventRecord } from "./records.js";
import type { MemoryScope } from "./scope.js";
import { hasStoredAtLeast, listAll, newestFirst, newestItems, valuesOf } from "./store-io.js";

/**
 * The events layer: classified user events at or over the importance threshold, keyed by the
 * message they came from (classifying the same message again overwrites, never duplicates).
 */

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/**
 * Most characters of its message's text an event keeps (cut, ending in "…"; the message itself is
 * in the transcript, under `messageId`). Recall reads up to 200 recent events every turn, and shows
 * each in a line of the prompt.
 */
export const EVENT_TEXT_CHARS = 1_000;

/**
 * The write of one event, its text cut to `EVENT_TEXT_CHARS`, for a caller that batches writes
 * (`saveClassified`, an import); the caller holds the user's events to the retention policy
 * (`enforceEventCap`).
 */
export function eventPut(scope: UserScope, event: EventRecord): PutOperation & { value: Record<string, unknown> } {
  // Unindexed: events are read by recency, never searched by text (no full-text row, no vector).
  return { namespace: namespaces.events(scope), key: event.id, value: { ...event, text: truncate(event.text, EVENT_TEXT_CHARS) }, index: false };
}

/**
 * Applies retention when the user holds more than `maxEventsPerUser` events (one bounded probe);
 * age-based expiry is left to `npm run gc`, which applies the whole policy. Returns how many were dropped.
 */
export async function enforceEventCap(store: BaseStore, scope: UserScope, retention: RetentionPolicy, now: Date): Promise<number> {
  const beyond = await hasStoredAtLeast(store, namespaces.events(scope), retention.maxEventsPerUser + 1);
  return beyond ? applyRetention(store, scope, retention, now) : 0;
}

/** Deletes the user's events beyond the retention policy; returns the count deleted. */
export async function applyRetention(store: BaseStore, scope: UserScope, retention: RetentionPolicy, now: Date): Promise<number> {
  const all = valuesOf<EventRecord>(await listAll(store, namespaces.events(scope), { cap: retention.maxEventsPerUser * 2 + 100 }));
  const { dropped } = applyEventRetention(all, retention, now);
  await Promise.all(dropped.map((event) => store.delete(namespaces.events(scope), event.id)));
  return dropped.length;
}

/**
 * The user's most recent events with importance at or over `minImportance`, newest first, looked
 * for among the newest `window` events (so the read stays bounded however many are kept).
 */
export async function importantEvents(
  store: BaseStore,
  scope: UserScope,
  options: { minImportance: number; limit: number; window: number },
): Promise<EventRecord[]> {
  const recent = valuesOf<EventRecord>(await newestItems(store, namespaces.events(scope), { limit: options.window }));
  const important = recent.filter((event) => event.importance >= options.minImportance);
  return newestFirst(important, (e) => e.createdAt).slice(0, options.limit);
}
