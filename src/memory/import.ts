import type { BaseStore, Operation } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../errors.js";
import type { ParsedImport, ParsedImportSession } from "./import-schema.js";
import { namespaces } from "./namespaces.js";
import type { TranscriptRecord } from "./records.js";
import type { MemoryScope } from "./scope.js";
import { loadFacts } from "./facts.js";
import { assertGraphClosed, assertOneCurrentPerKey, assertUniqueIds, layerRecordsOf, layerWrites, referencesOf, sameJson, unknownReference } from "./import-layers.js";
import { warmSearch } from "./store-io.js";
import { entityGraphUpdate } from "./entities/entity-graph.js";
import type { Extraction } from "./entities/extract.js";
import type { EntityRecord } from "./entities/graph-records.js";
import { assembled, nodeWrites, type NodeTail } from "./entities/graph-store.js";
import { entityRecordOf, mergeNode } from "./entities/graph-transfer.js";

/**
 * Import of past conversations: messages go into the transcript through the write path of live
 * turns (the store indexes them for recall as it indexes a turn's messages), and an export's
 * events, facts, summaries and idempotency records into their layers. Everything is checked before
 * the first write, and everything is written in one batch (one transaction): a bad element, a
 * conflict with what is stored or a failed write fails the whole import, and nothing is written.
 *
 * The entity graph: an export document's nodes are merged into the stored ones (see
 * graph-transfer.ts: restored, not extracted again, so what a model or a resolved pronoun added
 * survives the round trip); a plain list of sessions, or an older export without a graph, has its
 * new messages' graph extracted as live writes extract it. A node already stored as the merge would
 * leave it is not written: an import sent again writes nothing.
 */

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/** What an import wrote: sessions touched, messages new and already stored, records of the other layers written. */
export interface ImportCounts {
  sessions: number;
  messages: { imported: number; skipped: number };
  events: number;
  facts: number;
  summaries: number;
  /** Idempotency records of finished turns. */
  turns: number;
  /** Entity graph nodes written (restored from a document, or extracted from the new messages). */
  entities: number;
}

/** The writes an import makes, planned before any is made. */
export interface ImportPlan {
  counts: ImportCounts;
  /** Per session, the transcript records new to the store, in import order. */
  transcripts: { scope: MemoryScope; records: TranscriptRecord[] }[];
  /** The writes of the other layers (events, facts, summaries, a document's entity graph). */
  layers: Operation[];
  /** Whether the graph is extracted from the new messages (no graph in the import) at apply time. */
  extractGraph: boolean;
}

/** One second between messages that carry no `createdAt`, from the session's `startedAt`. */
const STEP_MS = 1_000;

/**
 * The records of one imported session: a message without `createdAt` is dated `startedAt` plus one
 * second per position, one without `parentId` follows the message before it (the first has none).
 * Throws INVALID_INPUT on a duplicated message id, or a parent that is neither in the session nor
 * stored (`stored` holds the session's stored messages by id). Pure.
 */
export function sessionRecords(
  session: ParsedImportSession,
  field: string,
  stored: ReadonlyMap<string, TranscriptRecord>,
): TranscriptRecord[] {
  const start = Date.parse(session.startedAt);
  const ids = new Set<string>();
  session.messages.forEach((message, i) => {
    if (ids.has(message.id)) throw invalid(`${field}.messages.${i}.id`, `the message id ${message.id} appears twice in this session`);
    ids.add(message.id);
  });
  const records: TranscriptRecord[] = [];
  let previous: string | null = null;
  for (const [i, message] of session.messages.entries()) {
    const parentId = message.parentId === undefined ? previous : message.parentId;
    if (parentId !== null && !ids.has(parentId) && !stored.has(parentId)) {
      throw invalid(`${field}.messages.${i}.parentId`, `no message ${parentId} in this session`, "UNKNOWN_PARENT");
    }
    const record: TranscriptRecord = {
      id: message.id,
      role: message.role,
      text: message.text,
      parentId,
      sessionId: session.sessionId,
      createdAt: message.createdAt ?? new Date(start + i * STEP_MS).toISOString(),
    };
    if (message.speaker !== undefined) record.speaker = message.speaker;
    if (message.files !== undefined) record.files = message.files;
    if (message.model !== undefined) record.model = message.model;
    if (message.recall === false) record.recall = false;
    records.push(record);
    previous = message.id;
  }
  return records;
}

/**
 * Plans an import for `user` with one batch of reads: the messages already stored under the
 * imported ids and the ids the other records point at, and the records stored under the
 * imported records' keys. Skips messages stored with the same role, speaker and text, and records
 * stored as they are (an import sent again writes nothing, and counts nothing); refuses with
 * MESSAGE_ID_CONFLICT (naming the element) a message stored with another text, and with
 * UNKNOWN_REFERENCE a record pointing at a session or message neither the import nor the store
 * holds; with INVALID_INPUT two records of one layer under one id, and a fact that would be a
 * second current version of its key (the user's stored facts counted). Writes nothing.
 */
export async function planImport(store: BaseStore, user: UserScope, parsed: ParsedImport, root: string): Promise<ImportPlan> {
  const prefix = root ? `${root}.` : "";
  const sessionIds = new Set<string>();
  parsed.sessions.forEach((session, s) => {
    if (sessionIds.has(session.sessionId)) throw invalid(`${prefix}${s}.sessionId`, `the session ${session.sessionId} appears twice`);
    sessionIds.add(session.sessionId);
  });
  assertUniqueIds(parsed);
  assertGraphClosed(parsed);
  const inImport = new Map(parsed.sessions.map((session) => [session.sessionId, new Set(session.messages.map((m) => m.id))]));
  const references = referencesOf(parsed);
  const records = layerRecordsOf(user, parsed);
  const messageReads = [
    ...parsed.sessions.flatMap((session) => session.messages.flatMap((m) => [m.id, ...(m.parentId ? [m.parentId] : [])]).map((id) => ({ sessionId: session.sessionId, id }))),
    ...references.messages.filter((ref) => !inImport.get(ref.sessionId)?.has(ref.messageId)).map((ref) => ({ sessionId: ref.sessionId, id: ref.messageId })),
  ];
  const unknownSessions = [...new Set(references.sessions.map((ref) => ref.sessionId).filter((id) => !inImport.has(id)))];
  const nodes = (parsed.entities ?? []).map(entityRecordOf);
  const operations: Operation[] = [
    ...messageReads.map(({ sessionId, id }) => ({ namespace: namespaces.transcript({ ...user, sessionId }), key: id })),
    ...records.map((record) => ({ namespace: record.namespace, key: record.key })),
    ...unknownSessions.map((sessionId) => ({ namespacePrefix: namespaces.transcript({ ...user, sessionId }), limit: 1 })),
    ...nodes.flatMap((node) => [
      { namespace: namespaces.entities(user), key: node.key },
      { namespace: namespaces.entityTails(user), key: node.key },
    ]),
  ];
  const [results, storedFacts] = await Promise.all([
    operations.length === 0 ? Promise.resolve([]) : (store.batch(operations) as Promise<unknown[]>),
    // Only an import that carries facts can make a second current version of a key.
    parsed.facts.length === 0 ? Promise.resolve([]) : loadFacts(store, user),
  ]);
  assertOneCurrentPerKey(parsed.facts, storedFacts);
  const storedBySession = new Map<string, Map<string, TranscriptRecord>>();
  messageReads.forEach(({ sessionId, id }, i) => {
    const item = results[i] as { value: unknown } | null;
    if (!item) return;
    const bySession = storedBySession.get(sessionId) ?? new Map<string, TranscriptRecord>();
    bySession.set(id, item.value as TranscriptRecord);
    storedBySession.set(sessionId, bySession);
  });
  const storedSessions = new Set(unknownSessions.filter((_, i) => ((results[messageReads.length + records.length + i] as unknown[]) ?? []).length > 0));
  for (const ref of references.messages) {
    if (inImport.get(ref.sessionId)?.has(ref.messageId) || storedBySession.get(ref.sessionId)?.has(ref.messageId)) continue;
    throw unknownReference(ref.field, `the message ${ref.messageId} of session ${ref.sessionId}`);
  }
  for (const ref of references.sessions) {
    if (!inImport.has(ref.sessionId) && !storedSessions.has(ref.sessionId)) throw unknownReference(ref.field, `the session ${ref.sessionId}`);
  }
  const transcripts = transcriptsOf(user, parsed, prefix, storedBySession);
  const stored = records.map((_, i) => (results[messageReads.length + i] as { value: unknown } | null)?.value ?? null);
  const { puts, written } = layerWrites(records, stored);
  const nodesAt = messageReads.length + records.length + unknownSessions.length;
  const nodeChanges = nodes.map((node, i) => {
    const record = (results[nodesAt + 2 * i] as { value: unknown } | null)?.value as EntityRecord | undefined;
    const tail = (results[nodesAt + 2 * i + 1] as { value: unknown } | null)?.value as NodeTail | undefined;
    const stored = record ? { record, ...(tail ? { tail } : {}) } : undefined;
    const current = stored ? assembled(stored) : undefined;
    const merged = mergeNode(current, node);
    return current !== undefined && sameJson(current, merged) ? [] : nodeWrites(user, node.key, stored, merged);
  });
  const graphPuts = nodeChanges.flat();
  const sent = parsed.sessions.reduce((n, session) => n + session.messages.length, 0);
  const imported = transcripts.reduce((n, t) => n + t.records.length, 0);
  return {
    counts: {
      sessions: parsed.sessions.length,
      messages: { imported, skipped: sent - imported },
      events: written.events,
      facts: written.facts,
      summaries: written.summaries,
      turns: written.turns,
      entities: nodeChanges.filter((writes) => writes.length > 0).length,
    },
    transcripts,
    layers: [...puts, ...graphPuts],
    extractGraph: parsed.entities === undefined,
  };
}

/** Each session's records new to the store; throws MESSAGE_ID_CONFLICT for one stored otherwise. */
function transcriptsOf(user: UserScope, parsed: ParsedImport, prefix: string, storedBySession: ReadonlyMap<string, ReadonlyMap<string, TranscriptRecord>>): ImportPlan["transcripts"] {
  return parsed.sessions.map((session, s) => {
    const scope = { ...user, sessionId: session.sessionId };
    const stored = storedBySession.get(session.sessionId) ?? new Map<string, TranscriptRecord>();
    const records = sessionRecords(session, `${prefix}${s}`, stored).filter((record, i) => {
      const existing = stored.get(record.id);
      if (!existing) return true;
      if (sameMessage(existing, record)) return false;
      throw new MemoryGraphError(
        "MESSAGE_ID_CONFLICT",
        `${prefix}${s}.messages.${i}.id: the message ${record.id} is stored with another role, speaker or text; nothing was imported`,
        { kind: "user", field: `${prefix}${s}.messages.${i}.id` },
      );
    });
    return { scope, records };
  });
}

/**
 * Makes a planned import's writes, with `extra` ones (a classification's events and facts), in one
 * store batch: one transaction on every engine, so a failure leaves nothing of the import stored.
 * Returns the plan's counts with the graph nodes extracted here added. With `factKeys`, each message
 * is stored with its fact-augmented keys (see `factKeysOf`); `models`: a model's extraction of some
 * messages (by id: the import's classification), merged into the rules' one as a live turn's is.
 * Messages are indexed for recall as a live turn's are (one embedding call for the batch).
 */
export async function applyImport(
  store: BaseStore,
  plan: ImportPlan,
  extra: readonly Operation[] = [],
  options: { factKeys?: boolean; models?: ReadonlyMap<string, Extraction> } = {},
): Promise<ImportCounts> {
  const user = plan.transcripts[0]?.scope;
  // The entity graph of the imported messages (when the import carries none), stored in the same batch (one transaction).
  const update = user && (plan.extractGraph || options.factKeys === true) ? await entityGraphUpdate(store, user, plan.transcripts.flatMap((t) => t.records), options.models) : null;
  const graph = plan.extractGraph ? (update?.writes ?? []) : [];
  const keys = options.factKeys === true ? (update?.keys ?? new Map<string, string>()) : new Map<string, string>();
  const messages = plan.transcripts.flatMap(({ scope, records }) => {
    const namespace = namespaces.transcript(scope);
    return records.map((record): Operation => {
      const key = keys.get(record.id);
      return { namespace, key: record.id, value: { ...record, ...(key !== undefined ? { keys: key } : {}) }, ...(record.recall === false ? { index: false as const } : {}) };
    });
  });

  const operations = [...messages, ...plan.layers, ...graph, ...extra];
  const counts = { ...plan.counts, entities: plan.counts.entities + graph.length };
  if (operations.length === 0) return counts;
  await store.batch(operations);
  // Cross-session recall searches all of the user's sessions: keep that index warm from the write on.
  if (messages.length > 0 && user) await warmSearch(store, namespaces.sessions(user));
  return counts;
}

function sameMessage(a: TranscriptRecord, b: TranscriptRecord): boolean {
  return a.role === b.role && a.text === b.text && (a.speaker ?? null) === (b.speaker ?? null);
}

function invalid(field: string, message: string, code: "INVALID_INPUT" | "UNKNOWN_PARENT" = "INVALID_INPUT"): MemoryGraphError {
  return new MemoryGraphError(code, `${field}: ${message}`, { kind: "user", field });
}
