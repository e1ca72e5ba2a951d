import type { BaseStore, Operation } from "@langchain/langgraph-checkpoint";
import { truncate } from "./clip.js";
import { fromMessages, graphForgetWrites, graphRelearnWrites } from "./entities/forget-graph.js";
import { EVENT_TEXT_CHARS } from "./events.js";
import { loadFacts, restoreSuperseded, upsertFacts, type FactUpdate } from "./facts.js";
import { getRecord, type Page } from "./item-edits.js";
import { namespaces } from "./namespaces.js";
import type { EventRecord, FactRecord, TranscriptRecord } from "./records.js";
import type { MemoryScope } from "./scope.js";
import { listAll, newestItems, valuesOf } from "./store-io.js";
import { staleSummaryWrites } from "./summary-staleness.js";
import { saveTranscriptMessage } from "./transcript.js";

/**
 * One stored message, by id: listed, read, corrected and deleted. A correction is stored as the
 * message (re-indexed: text, date and vector computed again); a delete removes what was derived
 * from it too. The caller holds the session's turn lock, so no turn of the session runs between
 * the reads and the writes.
 */

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/** What deleting a message removed, rewrote or marked. */
export interface MessageDeletion {
  messages: number;
  events: number;
  facts: number;
  /** Facts of other messages that the deleted message's facts had superseded, current again. */
  restoredFacts: number;
  staleSummaries: number;
  /** Messages that answered or followed it, now following its parent (the thread stays whole). */
  relinked: number;
}

/** A page of a user's stored messages (one session's with `sessionId`), newest written first. */
export async function listMessages(store: BaseStore, scope: UserScope & { sessionId?: string }, page: Page): Promise<TranscriptRecord[]> {
  const prefix = scope.sessionId === undefined ? namespaces.sessions(scope) : namespaces.transcript({ ...scope, sessionId: scope.sessionId });
  return valuesOf<TranscriptRecord>(await newestItems(store, prefix, page));
}

export function getMessage(store: BaseStore, scope: MemoryScope, id: string): Promise<TranscriptRecord> {
  return getRecord<TranscriptRecord>(store, namespaces.transcript(scope), id, "MESSAGE_NOT_FOUND");
}

/**
 * Rewrites a message's text and re-indexes it (a `recall: false` message stays unindexed); the
 * event classified from it carries the new text, and the summaries covering it are marked stale.
 * The facts learned from it alone are learned again from the new text (`relearn`, the facade's
 * extractor; without one they go): a fact the old text alone stated is gone (one it had superseded
 * is current again), one the new text states is current. MESSAGE_NOT_FOUND when there is none.
 * Writing the same text again changes nothing.
 */
export async function updateMessage(
  store: BaseStore,
  scope: MemoryScope,
  id: string,
  text: string,
  options: { relearn?: (text: string) => FactUpdate[]; now?: Date } = {},
): Promise<TranscriptRecord> {
  const message = await getMessage(store, scope, id);
  if (message.text === text) return message;
  // Fact-augmented keys said what the old text said: an edit drops them.
  const { keys: _stale, ...kept } = message;
  const updated: TranscriptRecord = { ...kept, text };
  await saveTranscriptMessage(store, scope, updated);
  const event = await store.get(namespaces.events(scope), id);
  const writes: Operation[] = [
    ...(await staleSummaryWrites(store, scope, new Set([id]))),
    ...(await relearnedFactWrites(store, scope, updated, options)),
    ...(await graphRelearnWrites(store, scope, updated)),
  ];
  if (event) writes.push({ namespace: namespaces.events(scope), key: id, value: { ...(event.value as EventRecord), text: truncate(text, EVENT_TEXT_CHARS) }, index: false });
  if (writes.length > 0) await store.batch(writes);
  return updated;
}

/** The fact writes that make `message`'s facts those of its new text (see `updateMessage`). */
async function relearnedFactWrites(
  store: BaseStore,
  scope: MemoryScope,
  message: TranscriptRecord,
  options: { relearn?: (text: string) => FactUpdate[]; now?: Date },
): Promise<Operation[]> {
  const allFacts = await loadFacts(store, scope);
  const learned = allFacts.filter((fact) => fact.sourceMessageIds.length > 0 && fact.sourceMessageIds.every((source) => source === message.id));
  const updates = message.role === "user" && options.relearn ? options.relearn(message.text) : [];
  if (learned.length === 0 && updates.length === 0) return [];
  const removed = new Set(learned.map((fact) => fact.id));
  const restored = restoreSuperseded(allFacts, removed);
  const rewritten = new Map(restored.map((fact) => [fact.id, fact]));
  const survivors = allFacts.filter((fact) => !removed.has(fact.id)).map((fact) => rewritten.get(fact.id) ?? fact);
  const relearned = upsertFacts(survivors, updates, { messageId: message.id, sessionId: message.sessionId, now: (options.now ?? new Date()).toISOString() });
  const written = new Map<string, FactRecord | null>([...learned.map((fact) => [fact.id, null] as const), ...[...restored, ...relearned].map((fact) => [fact.id, fact] as const)]);
  return [...written].map(([key, fact]): Operation => ({ namespace: namespaces.facts(scope), key, value: fact === null ? null : { ...fact }, ...(fact === null ? {} : { index: false as const }) }));
}

/**
 * Deletes one message and what was derived from it: its index rows and vector (the store's delete
 * takes them), its turn's stored result and memory-context record, the event classified from it, the facts learned from it alone (a fact it had
 * superseded is current again), and marks stale the summaries covering it. Messages whose parent
 * it was follow its parent instead. Returns the counts; all 0 when there was no such message.
 */
export async function deleteMessage(store: BaseStore, scope: MemoryScope, id: string): Promise<MessageDeletion> {
  const transcript = namespaces.transcript(scope);
  const item = await store.get(transcript, id);
  if (!item) return { messages: 0, events: 0, facts: 0, restoredFacts: 0, staleSummaries: 0, relinked: 0 };
  const message = item.value as TranscriptRecord;
  const children = valuesOf<TranscriptRecord>(await listAll(store, transcript, { filter: { parentId: id } }));
  const event = await store.get(namespaces.events(scope), id);
  const allFacts = await loadFacts(store, scope);
  const learned = allFacts.filter((fact) => fact.sourceMessageIds.length > 0 && fact.sourceMessageIds.every((source) => source === id));
  const restored = restoreSuperseded(allFacts, new Set(learned.map((fact) => fact.id)));
  const stale = await staleSummaryWrites(store, scope, new Set([id]));
  const graph = await graphForgetWrites(store, scope, fromMessages(scope.sessionId, id));
  const writes: Operation[] = [
    { namespace: transcript, key: id, value: null },
    { namespace: namespaces.turnContexts(scope), key: id, value: null },
    // Its turn's stored result (the idempotency record) quotes it: sent again, the id runs anew.
    { namespace: namespaces.turns(scope), key: id, value: null },
    ...(event ? [{ namespace: namespaces.events(scope), key: id, value: null }] : []),
    ...learned.map((fact): Operation => ({ namespace: namespaces.facts(scope), key: fact.id, value: null })),
    ...restored.map((fact): Operation => ({ namespace: namespaces.facts(scope), key: fact.id, value: { ...fact }, index: false })),
    ...stale,
    ...graph,
  ];
  await store.batch(writes);
  // Relinked one by one, each as a message is saved (its index kept as it was).
  for (const child of children) await saveTranscriptMessage(store, scope, { ...child, parentId: message.parentId });
  return { messages: 1, events: event ? 1 : 0, facts: learned.length, restoredFacts: restored.length, staleSummaries: stale.length, relinked: children.length };
}
