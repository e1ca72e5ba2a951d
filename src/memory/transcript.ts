import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { metaOf, textOf, withMeta } from "../messages/message-meta.js";
import { extractThread, threadCycle } from "../messages/thread.js";
import { entityGraphUpdate } from "./entities/entity-graph.js";
import { namespaces } from "./namespaces.js";
import type { TranscriptRecord } from "./records.js";
import type { MemoryScope } from "./scope.js";
import { listAll, newestItems, valuesOf, warmSearch } from "./store-io.js";

/**
 * The transcript layer: every message of every session, every regeneration branch, kept in the
 * store so that recall can search it and a regeneration can rebuild its thread.
 */

/**
 * Saves one message (an upsert by id: sending the same message id twice stores it once). A
 * record with `recall: false` is stored unindexed, so no search finds it; with `indexed: false`
 * any message is stored but not yet indexed (no embedding is computed): a turn keeps its user
 * message at once and indexes it with the reply, in one batch. An indexed message keeps the
 * store's search index of the user's sessions warm (`warmSearch`).
 */
export async function saveTranscriptMessage(store: BaseStore, scope: MemoryScope, record: TranscriptRecord, options: { indexed?: boolean; factKeys?: boolean } = {}): Promise<void> {
  const indexed = options.indexed !== false && record.recall !== false;
  // An indexed message feeds the entity graph too, in the same batch (its nodes are read first).
  const update = indexed ? await entityGraphUpdate(store, scope, [record]) : null;
  const graph = update?.writes ?? [];
  const keys = options.factKeys === true ? update?.keys.get(record.id) : undefined;
  const put = { namespace: namespaces.transcript(scope), key: record.id, value: { ...record, ...(keys !== undefined ? { keys } : {}) }, ...(indexed ? {} : { index: false as const }) };
  if (graph.length === 0) await store.put(put.namespace, put.key, put.value, indexed ? undefined : false);
  else await store.batch([put, ...graph]);
  if (indexed) await warmSearch(store, namespaces.sessions(scope));
}

/** Saves several messages in one batch (indexing those recall may return): one write, one embedding call on our stores. */
export async function saveTranscriptMessages(store: BaseStore, scope: MemoryScope, records: readonly TranscriptRecord[], options: { factKeys?: boolean } = {}): Promise<void> {
  if (records.length === 0) return;
  const namespace = namespaces.transcript(scope);
  const { writes: graph, keys } = await entityGraphUpdate(store, scope, records);
  const valueOf = (record: TranscriptRecord) => {
    const key = options.factKeys === true ? keys.get(record.id) : undefined;
    return key !== undefined ? { ...record, keys: key } : { ...record };
  };
  await store.batch([...records.map((record) => ({ namespace, key: record.id, value: valueOf(record), ...(record.recall === false ? { index: false as const } : {}) })), ...graph]);
  // Cross-session recall searches all of the user's sessions: keep that index warm from the write on.
  await warmSearch(store, namespaces.sessions(scope));
}

/** Whether recall may return this stored message (everything but `recall: false` records). */
export function isRecallable(value: unknown): boolean {
  return (value as Partial<TranscriptRecord> | null)?.recall !== false;
}

export async function getTranscriptMessage(store: BaseStore, scope: MemoryScope, id: string): Promise<TranscriptRecord | null> {
  const item = await store.get(namespaces.transcript(scope), id);
  return item ? (item.value as TranscriptRecord) : null;
}

/**
 * The newest message of one session: the one created last among the last written (what is written
 * last may be older: an import of past messages). Null for a session with no transcript. Only reads.
 */
export async function newestMessage(store: BaseStore, scope: MemoryScope): Promise<TranscriptRecord | null> {
  const newest = valuesOf<TranscriptRecord>(await newestItems(store, namespaces.transcript(scope), { limit: 8 }));
  return newest.sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0] ?? null;
}

/** Every message of one session, oldest first. */
export async function loadTranscript(store: BaseStore, scope: MemoryScope): Promise<TranscriptRecord[]> {
  const records = valuesOf<TranscriptRecord>(await listAll(store, namespaces.transcript(scope)));
  return records.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** The thread from the session's root to `leafId` (Dify's extract_thread_messages), oldest first. */
export async function loadThread(store: BaseStore, scope: MemoryScope, leafId: string): Promise<TranscriptRecord[]> {
  return extractThread(await loadTranscript(store, scope), leafId);
}

/**
 * The newest part of the thread ending at `leafId`, oldest first: follows parent links back from
 * the leaf, one read per message, stopping at the root, after `stopAfterId` (not included), or
 * once `max` messages are read. The cost is bounded by `max`, not by the session's length. A
 * message met twice (a cycle of parent links) is refused with `THREAD_CYCLE`.
 */
export async function walkThread(
  store: BaseStore,
  scope: MemoryScope,
  leafId: string,
  options: { max: number; stopAfterId?: string | null },
): Promise<TranscriptRecord[]> {
  const path: TranscriptRecord[] = [];
  const seen = new Set<string>();
  let id: string | null = leafId;
  while (id !== null && id !== options.stopAfterId && path.length < options.max) {
    if (seen.has(id)) throw threadCycle(id);
    seen.add(id);
    const record = await getTranscriptMessage(store, scope, id);
    if (!record) break;
    path.push(record);
    id = record.parentId;
  }
  return path.reverse();
}

/** A message for the window, carrying its id and metadata. */
export function recordToMessage(record: TranscriptRecord): BaseMessage {
  const fields = { content: record.text, id: record.id };
  const message = record.role === "user" ? new HumanMessage(fields) : new AIMessage(fields);
  return withMeta(message, { parentId: record.parentId, createdAt: record.createdAt, files: record.files });
}

/** The transcript record of a window message. */
export function messageToRecord(
  message: BaseMessage,
  sessionId: string,
  extra: { model?: string; speaker?: string; recall?: false } = {},
): TranscriptRecord {
  const meta = metaOf(message);
  const record: TranscriptRecord = {
    id: message.id ?? "",
    role: message.getType() === "human" ? "user" : "assistant",
    text: textOf(message),
    parentId: meta.parentId,
    sessionId,
    createdAt: meta.createdAt,
  };
  if (meta.files && meta.files.length > 0) record.files = meta.files;
  if (extra.model) record.model = extra.model;
  if (extra.speaker) record.speaker = extra.speaker;
  if (extra.recall === false) record.recall = false;
  return record;
}
