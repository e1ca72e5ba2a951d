import type { BaseStore, Item } from "@langchain/langgraph-checkpoint";
import type { ImportSession, TurnRecordExport, UserMemoryExport } from "./import-schema.js";
import { decodeLabel, namespaces } from "./namespaces.js";
import type { EventRecord, FactRecord, SummaryRecord, TranscriptRecord } from "./records.js";
import type { MemoryScope } from "./scope.js";
import { listAll } from "./store-io.js";
import { entityExportOf } from "./entities/graph-transfer.js";
import { loadAllNodes } from "./entities/graph-store.js";
import { turnResultSchema, type TurnRecord } from "./turn-records.js";

/**
 * Export: every layer of one user's long-term memory as one JSON document — sessions with their
 * messages, events, facts (current and superseded, with validity), summaries and the idempotency
 * records of finished turns, the entity graph (every node with its edges, their validity and
 * sources) — in the shape
 * `importSessions` takes back. Deterministic: the same memory gives the same document, so export →
 * forget → import → export gives it again. The session windows (checkpoints) are not memory the
 * user brought and are not exported; a session continued after an import follows on from its
 * newest message, its window rebuilt from the transcript.
 */

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/** Most messages an export reads. */
const MAX_MESSAGES = 1_000_000;

/** Reads every layer of `user` into an export document. Reads only. */
export async function exportUserMemory(store: BaseStore, user: UserScope): Promise<UserMemoryExport> {
  // Oldest write first: our stores list newest first (by update, then write sequence); any other
  // store is put in update order. Import writes in this order, so neighbours stay neighbours.
  const prefix = namespaces.sessions(user);
  // By first write (`createdAt` survives updates: a regeneration writes its user message again),
  // then by write order.
  const written = (await listAll(store, prefix, { cap: MAX_MESSAGES })).reverse();
  const ordered = written
    .map((item, i) => ({ item, i }))
    .sort((a, b) => a.item.createdAt.getTime() - b.item.createdAt.getTime() || a.i - b.i);
  const bySession = new Map<string, ImportSession["messages"]>();
  for (const { item } of ordered) {
    // A transcript's namespace is the prefix, the session's label, "messages".
    const label = item.namespace[prefix.length];
    if (label === undefined || item.namespace.length !== prefix.length + 2 || item.namespace.at(-1) !== "messages") continue;
    const sessionId = decodeLabel(label);
    const messages = bySession.get(sessionId) ?? [];
    messages.push(messageOf(item.value as TranscriptRecord));
    bySession.set(sessionId, messages);
  }
  const sessions = [...bySession].map(([sessionId, messages]) => ({
    sessionId,
    startedAt: messages.reduce((first, m) => (m.createdAt && m.createdAt < first ? m.createdAt : first), messages[0]?.createdAt ?? ""),
    messages,
  }));
  const [events, facts, summaries, turns, entities] = await Promise.all([
    listAll(store, namespaces.events(user), { cap: Number.MAX_SAFE_INTEGER }),
    listAll(store, namespaces.facts(user), { cap: Number.MAX_SAFE_INTEGER }),
    listAll(store, namespaces.summaries(user), { cap: Number.MAX_SAFE_INTEGER }),
    listAll(store, namespaces.allTurns(user), { cap: Number.MAX_SAFE_INTEGER }),
    loadAllNodes(store, user, Number.MAX_SAFE_INTEGER),
  ]);
  return {
    version: 1,
    userId: user.userId,
    sessions,
    events: byTime(events.map((item) => item.value as EventRecord), (e) => e.createdAt),
    facts: byTime(facts.map((item) => item.value as FactRecord), (f) => f.validFrom),
    summaries: byTime(summaries.map((item) => item.value as SummaryRecord), (s) => s.createdAt),
    turns: turnRecordsOf(turns).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.sessionId.localeCompare(b.sessionId) || a.key.localeCompare(b.key)),
    entities: [...entities.values()].map(entityExportOf).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
  };
}

/**
 * The idempotency records among the items of the user's turns namespaces (not the session marks
 * kept beside them). A record whose result does not read as a turn result (`turnResultSchema`:
 * stored before imports checked it) is left out: a replay ignores it, and an import would refuse it.
 */
function turnRecordsOf(items: readonly Item[]): TurnRecordExport[] {
  return items.flatMap((item): TurnRecordExport[] => {
    const record = item.value as Partial<TurnRecord>;
    const label = item.namespace.at(-1);
    const result = turnResultSchema.safeParse(record.result);
    if (label === undefined || item.key !== record.key || typeof record.text !== "string" || !result.success) return [];
    const { key, text, parentMessageId = null, createdAt = "" } = record;
    return [{ sessionId: decodeLabel(label), key, text, parentMessageId, result: result.data, createdAt }];
  });
}


/** A stored message in the import shape: every field it has, none it lacks. */
function messageOf(record: TranscriptRecord): UserMemoryExport["sessions"][number]["messages"][number] {
  const { id, role, text, speaker, createdAt, parentId, model, files, recall } = record;
  return {
    id,
    role,
    text,
    createdAt,
    parentId,
    ...(speaker !== undefined ? { speaker } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(files !== undefined ? { files } : {}),
    ...(recall === false ? { recall } : {}),
  };
}

function byTime<T extends { id: string }>(records: T[], time: (record: T) => string): T[] {
  return records.sort((a, b) => time(a).localeCompare(time(b)) || a.id.localeCompare(b.id));
}
