import type { BaseStore, Item } from "@langchain/langgraph-checkpoint";
import { checkedPage } from "./item-schemas.js";
import { clip } from "./clip.js";
import { decodeLabel, namespaces } from "./namespaces.js";
import type { StoredTranscript } from "./ports/store.js";
import type { TranscriptRecord } from "./records.js";
import type { MemoryScope } from "./scope.js";
import { capable, listAll, supportsOf } from "./store-io.js";

/**
 * A user's sessions as a client lists them: each with a title, its message count and its first
 * and last activity, newest first, a page at a time. Read from the transcripts (so imported
 * sessions are listed too); a title the model gave a session is kept beside them (`saveSessionTitle`).
 */

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/** The most sessions one page lists. */
export const MAX_SESSIONS_PAGE = 100;
/** Most characters of a title made from the first user message. */
export const TITLE_CHARS = 60;
/** Most sessions of a user that are listed (a bound on the reads of one list). */
const MAX_SESSIONS = 10_000;

export interface SessionListing {
  sessionId: string;
  /** The model's title when one was made, else the first user message, clipped. */
  title: string;
  messageCount: number;
  firstActivityAt: string;
  lastActivityAt: string;
}

export interface SessionPage {
  sessions: SessionListing[];
  /** Sessions of the user in all. */
  total: number;
  /** The offset of the next page, or null when this is the last. */
  nextOffset: number | null;
}

/**
 * Lists the sessions of `user`, newest activity first (ties by session id). A store that can
 * (`transcriptListing`: SQLite, Postgres) counts and dates every transcript in one query without
 * returning a message; any other is read transcript by transcript. Then one batch reads the shown
 * sessions' titles and the one message each is titled by. Reads only.
 */
export async function listSessions(store: BaseStore, user: UserScope, page: { limit: number; offset: number }): Promise<SessionPage> {
  checkedPage(page, MAX_SESSIONS_PAGE);
  const prefix = namespaces.sessions(user);
  const counted = supportsOf(store).transcriptListing ? await capable(store, "transcriptListing").listTranscripts(prefix) : await readTranscripts(store, prefix);
  const ordered = counted
    .map((transcript) => ({ ...transcript, sessionId: decodeLabel(transcript.label) }))
    .sort((a, b) => b.lastAt.localeCompare(a.lastAt) || a.sessionId.localeCompare(b.sessionId));
  const shown = ordered.slice(page.offset, page.offset + page.limit);
  const read = await store.batch([
    ...shown.map((s) => ({ namespace: namespaces.sessionTitles(user), key: s.sessionId })),
    ...shown.map((s) => ({ namespace: [...prefix, s.label, "messages"], key: s.firstUserKey ?? s.firstKey })),
  ]);
  const sessions = shown.map((session, i) => {
    const given = (read[i]?.value as { title?: unknown } | undefined)?.title;
    const first = read[shown.length + i]?.value as Partial<TranscriptRecord> | undefined;
    return {
      sessionId: session.sessionId,
      title: typeof given === "string" ? given : clip(typeof first?.text === "string" ? first.text : "", TITLE_CHARS),
      messageCount: session.messages,
      firstActivityAt: session.firstAt,
      lastActivityAt: session.lastAt,
    };
  });
  const end = page.offset + shown.length;
  return { sessions, total: ordered.length, nextOffset: end < ordered.length ? end : null };
}

/**
 * `StorePort.listTranscripts` through plain `BaseStore` calls: every transcript read whole (at most
 * `MAX_SESSIONS` of them), counted and dated here as the engines' queries do.
 */
async function readTranscripts(store: BaseStore, prefix: string[]): Promise<StoredTranscript[]> {
  const listed = await store.listNamespaces({ prefix, suffix: ["messages"], maxDepth: prefix.length + 2, limit: MAX_SESSIONS });
  const read = await Promise.all(
    listed
      .filter((namespace) => namespace.length === prefix.length + 2)
      .map(async (namespace) => ({ label: namespace[prefix.length] ?? "", items: await listAll(store, namespace, { cap: Number.MAX_SAFE_INTEGER }) })),
  );
  // A store may keep a namespace listed after its last item is gone: such a session is not listed.
  return read.filter(({ items }) => items.length > 0).map(({ label, items }) => transcriptOf(label, items));
}

/** One transcript's counts; first messages by "createdAt␟key", the order the engines' queries use. */
function transcriptOf(label: string, items: readonly Item[]): StoredTranscript {
  let firstAt: string | null = null;
  let lastAt: string | null = null;
  let first: { order: string; key: string } | null = null;
  let firstUser: { order: string; key: string } | null = null;
  for (const item of items) {
    const record = item.value as Partial<TranscriptRecord>;
    if (typeof record.createdAt !== "string") continue;
    const at = record.createdAt;
    if (firstAt === null || at < firstAt) firstAt = at;
    if (lastAt === null || at > lastAt) lastAt = at;
    const order = `${at}\u001f${item.key}`;
    if (first === null || order < first.order) first = { order, key: item.key };
    if (record.role === "user" && (firstUser === null || order < firstUser.order)) firstUser = { order, key: item.key };
  }
  return { label, messages: items.length, firstAt: firstAt ?? "", lastAt: lastAt ?? "", firstKey: first?.key ?? "", firstUserKey: firstUser?.key ?? null };
}

/** The ids of every session of `user` that has a stored transcript (a store may still list one whose last message is gone). Reads only. */
export async function sessionIdsOf(store: BaseStore, user: UserScope): Promise<string[]> {
  const prefix = namespaces.sessions(user);
  const listed = await store.listNamespaces({ prefix, suffix: ["messages"], maxDepth: prefix.length + 2, limit: Number.MAX_SAFE_INTEGER });
  return listed.map((namespace) => decodeLabel(namespace[prefix.length] ?? ""));
}

/** Whether a title was kept for the session. */
export async function hasSessionTitle(store: BaseStore, scope: MemoryScope): Promise<boolean> {
  return (await store.get(namespaces.sessionTitles(scope), scope.sessionId)) !== null;
}

/** Keeps the title a model gave the session (unindexed: it is never searched). */
export async function saveSessionTitle(store: BaseStore, scope: MemoryScope, title: string): Promise<void> {
  await store.put(namespaces.sessionTitles(scope), scope.sessionId, { title: clip(title, TITLE_CHARS) }, false);
}

/** Forgets the title of a session (when the session is forgotten). */
export async function deleteSessionTitle(store: BaseStore, scope: MemoryScope): Promise<void> {
  await store.delete(namespaces.sessionTitles(scope), scope.sessionId);
}
