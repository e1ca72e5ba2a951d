import type { BaseStore, Operation } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../errors.js";
import type { ParsedImport, ParsedImportSession } from "./import-schema.js";
import { namespaces } from "./namespaces.js";
import type { TranscriptRecord } from "./records.js";
import type { MemoryScope } from "./scope.js";
import { saveTranscriptMessages } from "./transcript.js";

/**
 * Import of past conversations: messages go into the transcript through the write path of live
 * turns (the store indexes them for recall as it indexes a turn's messages), and an export's
 * events, facts and summaries into their layers. Everything is checked before the first write: a
 * bad element or a conflict with what is stored fails the whole import, and nothing is written.
 */

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/** What an import wrote: sessions touched, messages new and already stored, records of the other layers. */
export interface ImportCounts {
  sessions: number;
  messages: { imported: number; skipped: number };
  events: number;
  facts: number;
  summaries: number;
}

/** The writes an import makes, planned before any is made. */
export interface ImportPlan {
  counts: ImportCounts;
  /** Per session, the transcript records new to the store, in import order. */
  transcripts: { scope: MemoryScope; records: TranscriptRecord[] }[];
  /** The writes of the other layers (events, facts, summaries). */
  layers: Operation[];
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
 * Plans an import for `user`: reads the messages already stored under the imported ids (one
 * batch of reads), skips those stored with the same role, speaker and text (an import sent again
 * writes nothing), and refuses with MESSAGE_ID_CONFLICT (naming the element) one stored with
 * another. Writes nothing.
 */
export async function planImport(store: BaseStore, user: UserScope, parsed: ParsedImport, root: string): Promise<ImportPlan> {
  const prefix = root ? `${root}.` : "";
  const sessionIds = new Set<string>();
  parsed.sessions.forEach((session, s) => {
    if (sessionIds.has(session.sessionId)) throw invalid(`${prefix}${s}.sessionId`, `the session ${session.sessionId} appears twice`);
    sessionIds.add(session.sessionId);
  });
  const reads = parsed.sessions.flatMap((session) => {
    const namespace = namespaces.transcript({ ...user, sessionId: session.sessionId });
    const ids = new Set(session.messages.flatMap((m) => [m.id, ...(m.parentId ? [m.parentId] : [])]));
    return [...ids].map((key) => ({ sessionId: session.sessionId, op: { namespace, key } satisfies Operation }));
  });
  const found = reads.length === 0 ? [] : ((await store.batch(reads.map((read) => read.op))) as ({ value: unknown } | null)[]);
  const storedBySession = new Map<string, Map<string, TranscriptRecord>>();
  found.forEach((item, i) => {
    const read = reads[i];
    if (!item || !read) return;
    const bySession = storedBySession.get(read.sessionId) ?? new Map<string, TranscriptRecord>();
    bySession.set(read.op.key, item.value as TranscriptRecord);
    storedBySession.set(read.sessionId, bySession);
  });
  const transcripts: ImportPlan["transcripts"] = [];
  let skipped = 0;
  parsed.sessions.forEach((session, s) => {
    const scope = { ...user, sessionId: session.sessionId };
    const stored = storedBySession.get(session.sessionId) ?? new Map<string, TranscriptRecord>();
    const records: TranscriptRecord[] = [];
    transcripts.push({ scope, records });
    sessionRecords(session, `${prefix}${s}`, stored).forEach((record, i) => {
      const existing = stored.get(record.id);
      if (existing && sameMessage(existing, record)) {
        skipped += 1;
        return;
      }
      if (existing) {
        throw new MemoryGraphError(
          "MESSAGE_ID_CONFLICT",
          `${prefix}${s}.messages.${i}.id: the message ${record.id} is stored with another role, speaker or text; nothing was imported`,
          { kind: "user", field: `${prefix}${s}.messages.${i}.id` },
        );
      }
      records.push(record);
    });
  });
  // Events, facts and summaries are upserted by id, written as their layers write them.
  const layer = (namespace: string[], records: readonly { id: string }[]) =>
    records.map((record): Operation => ({ namespace, key: record.id, value: { ...record } }));
  const layers = [
    ...layer(namespaces.events(user), parsed.events),
    ...layer(namespaces.facts(user), parsed.facts),
    ...layer(namespaces.summaries(user), parsed.summaries),
  ];
  return {
    counts: {
      sessions: parsed.sessions.length,
      messages: { imported: transcripts.reduce((n, t) => n + t.records.length, 0), skipped },
      events: parsed.events.length,
      facts: parsed.facts.length,
      summaries: parsed.summaries.length,
    },
    transcripts,
    layers,
  };
}

/**
 * Makes a planned import's writes: each session's messages as a live turn's are saved
 * (`saveTranscriptMessages`: one batch, one embedding call, indexed for recall), then the other
 * layers in one batch. A store that fails part-way leaves what was written; the import sent again
 * writes the rest (what is stored is skipped).
 */
export async function applyImport(store: BaseStore, plan: ImportPlan): Promise<void> {
  for (const { scope, records } of plan.transcripts) await saveTranscriptMessages(store, scope, records);
  if (plan.layers.length > 0) await store.batch(plan.layers);
}

function sameMessage(a: TranscriptRecord, b: TranscriptRecord): boolean {
  return a.role === b.role && a.text === b.text && (a.speaker ?? null) === (b.speaker ?? null);
}

function invalid(field: string, message: string, code: "INVALID_INPUT" | "UNKNOWN_PARENT" = "INVALID_INPUT"): MemoryGraphError {
  return new MemoryGraphError(code, `${field}: ${message}`, { kind: "user", field });
}
