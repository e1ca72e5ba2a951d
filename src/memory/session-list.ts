import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { checkedPage } from "./item-schemas.js";
import { clip } from "./clip.js";
import { decodeLabel, namespaces } from "./namespaces.js";
import type { TranscriptRecord } from "./records.js";
import type { MemoryScope } from "./scope.js";
import { listAll, newestItems } from "./store-io.js";

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

/** Lists the sessions of `user`, newest activity first (ties by session id). Reads only. */
export async function listSessions(store: BaseStore, user: UserScope, page: { limit: number; offset: number }): Promise<SessionPage> {
  checkedPage(page, MAX_SESSIONS_PAGE);
  const prefix = namespaces.sessions(user);
  const listed = await store.listNamespaces({ prefix, suffix: ["messages"], maxDepth: prefix.length + 2, limit: MAX_SESSIONS });
  const newest = await Promise.all(
    listed.map(async (namespace) => {
      const [last] = await newestItems(store, namespace, { limit: 1, textChars: 1 });
      return last ? { namespace, sessionId: decodeLabel(namespace[prefix.length] ?? ""), lastAt: (last.value as TranscriptRecord).createdAt } : null;
    }),
  );
  // A store may keep a namespace listed after its last item is gone: such a session is not listed.
  const ordered = newest.filter((s) => s !== null).sort((a, b) => b.lastAt.localeCompare(a.lastAt) || a.sessionId.localeCompare(b.sessionId));
  const shown = ordered.slice(page.offset, page.offset + page.limit);
  const titles = await store.batch(shown.map((s) => ({ namespace: namespaces.sessionTitles(user), key: s.sessionId })));
  const sessions = await Promise.all(
    shown.map(async (session, i) => {
      const records = (await listAll(store, session.namespace)).map((item) => item.value as TranscriptRecord);
      const byTime = records.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
      const given = (titles[i]?.value as { title?: unknown } | undefined)?.title;
      const firstUser = byTime.find((m) => m.role === "user");
      return {
        sessionId: session.sessionId,
        title: typeof given === "string" ? given : clip(firstUser?.text ?? byTime[0]?.text ?? "", TITLE_CHARS),
        messageCount: records.length,
        firstActivityAt: byTime[0]?.createdAt ?? session.lastAt,
        lastActivityAt: byTime.at(-1)?.createdAt ?? session.lastAt,
      };
    }),
  );
  const end = page.offset + shown.length;
  return { sessions, total: ordered.length, nextOffset: end < ordered.length ? end : null };
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
