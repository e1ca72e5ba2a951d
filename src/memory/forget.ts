import type { BaseCheckpointSaver, BaseStore, Operation } from "@langchain/langgraph-checkpoint";
import { log } from "../logger.js";
import { namespaces } from "./namespaces.js";
import type { SummaryRecord } from "./records.js";
import { threadIdOf, validateId, validateScope, type MemoryScope } from "./scope.js";

/**
 * Forgetting: deletes a user's (or one session's) memory from every layer — store items (with
 * their index rows, on stores that keep any) and checkpoint threads.
 */

/** The storage a forget works on. */
export interface ForgetTarget {
  store: BaseStore;
  checkpointer: BaseCheckpointSaver;
}

/** What a forget deleted: store items, sessions found, checkpoint threads that existed. */
export interface ForgetCounts {
  items: number;
  sessions: number;
  threads: number;
}

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/** A store that deletes a whole namespace prefix itself (our SQLite store). */
interface PrefixDeletingStore {
  deleteNamespacePrefix(prefix: string[]): number | Promise<number>;
}

const PAGE = 500;

/**
 * Deletes everything of one user: every store item whose namespace begins with the user's
 * namespace (transcripts of all sessions, summaries, events, facts) and the checkpoint thread of
 * every session of the user. Other users and tenants are untouched. Idempotent.
 */
export async function forgetUser(target: ForgetTarget, user: UserScope): Promise<ForgetCounts> {
  const scope = { tenantId: validateId("tenantId", user.tenantId), userId: validateId("userId", user.userId) };
  const { stored, candidates } = await sessionsOf(target, scope);
  const forgotten = new Set(stored);
  let threads = 0;
  for (const sessionId of candidates) {
    if (!(await deleteThread(target.checkpointer, threadIdOf({ ...scope, sessionId })))) continue;
    threads += 1;
    forgotten.add(sessionId);
  }
  const items = await deletePrefix(target.store, namespaces.user(scope));
  log.info("memory.user_forgotten", { tenant: scope.tenantId, items, sessions: forgotten.size, threads });
  return { items, sessions: forgotten.size, threads };
}

/**
 * Deletes one session: its transcript, its turns' idempotency records, the summaries made of it, and its checkpoint thread
 * (window, session variables, node-scoped memory). The user's events and facts stay: they are
 * long-term memory of the user, not of the session.
 */
export async function forgetSession(target: ForgetTarget, session: MemoryScope): Promise<ForgetCounts> {
  const scope = validateScope(session);
  let items = await deletePrefix(target.store, namespaces.session(scope));
  items += await deletePrefix(target.store, namespaces.turns(scope));
  const summaries = await itemsWhere(target.store, namespaces.summaries(scope), (value) => (value as Partial<SummaryRecord>).sessionId === scope.sessionId);
  if (summaries.length > 0) {
    await target.store.batch(summaries.map((key): Operation => ({ namespace: namespaces.summaries(scope), key, value: null })));
    items += summaries.length;
  }
  const threads = (await deleteThread(target.checkpointer, threadIdOf(scope))) ? 1 : 0;
  const sessions = items > 0 || threads > 0 ? 1 : 0;
  log.info("memory.session_forgotten", { tenant: scope.tenantId, items, threads });
  return { items, sessions, threads };
}

/**
 * The sessions of a user: `stored` have a transcript in the store; `candidates` may have a
 * checkpoint thread — the stored ones, plus, on a checkpointer that exposes its threads
 * (MemorySaver's `storage`), every thread id under the user.
 */
async function sessionsOf(target: ForgetTarget, user: UserScope): Promise<{ stored: string[]; candidates: string[] }> {
  const prefix = namespaces.sessions(user);
  const candidates = new Set<string>();
  for (const namespace of await target.store.listNamespaces({ prefix, maxDepth: prefix.length + 1 })) {
    const sessionId = namespace[prefix.length];
    if (sessionId !== undefined) candidates.add(sessionId);
  }
  // Some stores keep a namespace listed after its last item is deleted: count only non-empty ones.
  const stored = new Set<string>();
  for (const sessionId of candidates) {
    if ((await target.store.search(namespaces.session({ ...user, sessionId }), { limit: 1 })).length > 0) stored.add(sessionId);
  }
  const storage = (target.checkpointer as { storage?: unknown }).storage;
  if (storage && typeof storage === "object") {
    const threadPrefix = `${user.tenantId}/${user.userId}/`;
    for (const threadId of Object.keys(storage)) {
      if (threadId.startsWith(threadPrefix)) candidates.add(threadId.slice(threadPrefix.length));
    }
  }
  return { stored: [...stored], candidates: [...candidates] };
}

async function deleteThread(checkpointer: BaseCheckpointSaver, threadId: string): Promise<boolean> {
  const existed = (await checkpointer.getTuple({ configurable: { thread_id: threadId } })) !== undefined;
  await checkpointer.deleteThread(threadId);
  return existed;
}

function hasPrefixDelete(store: BaseStore): store is BaseStore & PrefixDeletingStore {
  return typeof (store as Partial<PrefixDeletingStore>).deleteNamespacePrefix === "function";
}

/** Deletes every item under `prefix`; returns how many were deleted. */
async function deletePrefix(store: BaseStore, prefix: string[]): Promise<number> {
  if (hasPrefixDelete(store)) return store.deleteNamespacePrefix(prefix);
  let deleted = 0;
  // Each round deletes the page it read, so the next round reads from the start again.
  for (;;) {
    const page = await store.search(prefix, { limit: PAGE });
    if (page.length === 0) return deleted;
    await store.batch(page.map((item): Operation => ({ namespace: item.namespace, key: item.key, value: null })));
    deleted += page.length;
  }
}

/** The keys of the items directly in `namespace` whose value passes `keep`. */
async function itemsWhere(store: BaseStore, namespace: string[], keep: (value: unknown) => boolean): Promise<string[]> {
  const keys: string[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await store.search(namespace, { limit: PAGE, offset });
    for (const item of page) if (item.namespace.length === namespace.length && keep(item.value)) keys.push(item.key);
    if (page.length < PAGE) break;
  }
  return keys;
}
