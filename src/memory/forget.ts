import type { BaseCheckpointSaver, BaseStore, Item, Operation } from "@langchain/langgraph-checkpoint";
import { log } from "../logger.js";
import { restoreSuperseded } from "./facts.js";
import { fromMessages, graphForgetWrites } from "./entities/forget-graph.js";
import { decodeLabel, namespaces } from "./namespaces.js";
import { deleteSessionTitle } from "./session-list.js";
import type { TurnLock, UserLock } from "./ports/persistence.js";
import type { FactRecord } from "./records.js";
import { legacyThreadOf, threadIdOf, userKeyOf, validateScope, validateUser, type Checked, type MemoryScope, type UserScope } from "./scope.js";
import { capable, supportsOf } from "./store-io.js";

/**
 * Forgetting: deletes a user's (or one session's) memory from every layer — store items (with
 * their index rows, on stores that keep any) and checkpoint threads. Forgetting a session also
 * removes what was learned in it (events, facts, summaries), as if it had never taken place.
 */

/** The storage a forget works on, and the locks `forgetUser` takes when given (a `Persistence` has both). */
export interface ForgetTarget {
  store: BaseStore;
  checkpointer: BaseCheckpointSaver;
  turnLock?: TurnLock;
  userLock?: UserLock;
}

/**
 * What a forget deleted: store items in all (`items`), and of them transcript `messages`,
 * `summaries`, `events` and `facts`; sessions found; checkpoint threads that existed.
 */
export interface ForgetCounts {
  items: number;
  messages: number;
  summaries: number;
  events: number;
  facts: number;
  sessions: number;
  threads: number;
}

/**
 * What forgetting a session did: the deletions, how many facts it had superseded are true again,
 * and how many facts learned in it stay because a person pinned them.
 */
export interface SessionForgetCounts extends ForgetCounts {
  restoredFacts: number;
  keptPinnedFacts: number;
}


const PAGE = 500;

/**
 * Deletes everything of one user: every store item whose namespace begins with the user's
 * namespace (transcripts of all sessions, summaries, events, facts, pinned or not) and the
 * checkpoint thread of every session of the user. Other users and tenants are untouched.
 * Idempotent. With the target's locks, it holds the user's lock alone (`UserLock.exclusive`): it
 * starts once every turn of the user holding it, on any instance, has ended with its upkeep, so
 * their writes are among what it deletes, and turns asking meanwhile start after it on a forgotten
 * user; the user's edit lock (no correction of the user's memory writes in between); and each
 * session's turn lock while deleting its thread (garbage collection's upkeep of it comes before or after).
 */
export async function forgetUser(target: ForgetTarget, user: UserScope): Promise<ForgetCounts> {
  const scope = validateUser(user);
  const locked = <T>(key: string, work: () => Promise<T>): Promise<T> => (target.turnLock ? target.turnLock.run(key, work) : work());
  const alone = <T>(work: () => Promise<T>): Promise<T> => (target.userLock ? target.userLock.exclusive(userKeyOf(scope), work) : work());
  return alone(() => locked(userKeyOf(scope), async () => {
    const { stored, candidates } = await sessionsOf(target, scope);
    const forgotten = new Set(stored);
    let threads = 0;
    for (const sessionId of candidates) {
      const session = { ...scope, sessionId };
      if (!(await locked(threadIdOf(session), () => deleteThreads(target.checkpointer, session)))) continue;
      threads += 1;
      forgotten.add(sessionId);
    }
    const { store } = target;
    const messages = await deletePrefix(store, namespaces.sessions(scope));
    const summaries = await deletePrefix(store, namespaces.summaries(scope));
    const events = await deletePrefix(store, namespaces.events(scope));
    const facts = await deletePrefix(store, namespaces.facts(scope));
    // Whatever else lies under the user (idempotency and memory-context records, titles) goes too, counted in `items` only.
    const items = messages + summaries + events + facts + (await deletePrefix(store, namespaces.user(scope)));
    log.info("memory.user_forgotten", { tenant: scope.tenantId, items, sessions: forgotten.size, threads });
    return { items, messages, summaries, events, facts, sessions: forgotten.size, threads };
  }));
}

/**
 * Deletes one session and what was learned in it: its transcript (and its turns' idempotency
 * and memory-context records, counted in `items`), the summaries made of it, the events and facts that came from its
 * messages, and its checkpoint thread (window, session variables, node-scoped memory). A fact of another session that one of its facts superseded is
 * true again (see `restoreSuperseded`). A fact learned in it that a person pinned stays (the
 * person chose to keep it), with its `sourceMessageIds` emptied since those messages are gone;
 * the versions of its key that were not pinned go. Other sessions' memory stays. Idempotent.
 */
export async function forgetSession(target: ForgetTarget, session: MemoryScope): Promise<SessionForgetCounts> {
  return forgetCheckedSession(target, validateScope(session));
}

/** `forgetSession` of a scope checked already (the facade checks it once, for its lock too). */
export async function forgetCheckedSession(target: ForgetTarget, scope: Checked<MemoryScope>): Promise<SessionForgetCounts> {
  const { store } = target;
  const ofSession = (item: Item) => (item.value as { sessionId?: unknown }).sessionId === scope.sessionId;
  const summaries = (await itemsIn(store, namespaces.summaries(scope))).filter(ofSession);
  const events = (await itemsIn(store, namespaces.events(scope))).filter(ofSession);
  const allFacts = await itemsIn(store, namespaces.facts(scope));
  const isPinned = (item: Item) => (item.value as FactRecord).pinned === true;
  const facts = allFacts.filter((item) => ofSession(item) && !isPinned(item));
  const pinned = allFacts.filter((item) => ofSession(item) && isPinned(item)).map((item) => item.value as FactRecord);
  const restored = restoreSuperseded(
    allFacts.map((item) => item.value as FactRecord),
    new Set(facts.map((item) => item.key)),
  );
  // The entity graph loses what the session's messages alone said.
  const graph = await graphForgetWrites(store, scope, fromMessages(scope.sessionId));
  // One batch: on our stores the learned records go, and the facts they superseded come back, together.
  const learned: Operation[] = [
    ...[...summaries, ...events, ...facts].map((item): Operation => ({ namespace: item.namespace, key: item.key, value: null })),
    ...restored.map((fact): Operation => ({ namespace: namespaces.facts(scope), key: fact.id, value: { ...fact }, index: false })),
    ...pinned
      .filter((fact) => fact.sourceMessageIds.length > 0)
      .map((fact): Operation => ({ namespace: namespaces.facts(scope), key: fact.id, value: { ...fact, sourceMessageIds: [] }, index: false })),
    ...graph,
  ];
  if (learned.length > 0) await store.batch(learned);
  const messages = await deletePrefix(store, namespaces.session(scope));
  const turnRecords = (await deletePrefix(store, namespaces.turns(scope))) + (await deletePrefix(store, namespaces.turnContexts(scope)));
  await deleteSessionTitle(store, scope);
  const threads = (await deleteThreads(target.checkpointer, scope)) ? 1 : 0;
  const counts = { messages, summaries: summaries.length, events: events.length, facts: facts.length };
  const items = counts.messages + counts.summaries + counts.events + counts.facts + turnRecords;
  const sessions = items > 0 || threads > 0 ? 1 : 0;
  const kept = { restoredFacts: restored.length, keptPinnedFacts: pinned.length };
  log.info("memory.session_forgotten", { tenant: scope.tenantId, items, ...counts, ...kept, threads });
  return { items, ...counts, ...kept, sessions, threads };
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
    const label = namespace[prefix.length];
    if (label !== undefined) candidates.add(decodeLabel(label)); // the id, not its label ("a.b" is stored as "a%2Eb")
  }
  // Some stores keep a namespace listed after its last item is deleted: count only non-empty ones.
  const stored = new Set<string>();
  for (const sessionId of candidates) {
    if ((await target.store.search(namespaces.session({ ...user, sessionId }), { limit: 1 })).length > 0) stored.add(sessionId);
  }
  const storage = (target.checkpointer as { storage?: unknown }).storage;
  if (storage && typeof storage === "object") {
    const threadPrefix = `${userKeyOf(user)}/`;
    for (const threadId of Object.keys(storage)) {
      if (threadId.startsWith(threadPrefix)) candidates.add(decodeLabel(threadId.slice(threadPrefix.length)));
    }
  }
  return { stored: [...stored], candidates: [...candidates] };
}

/**
 * Deletes the session's checkpoint thread, and the one an earlier release named it by (see
 * `legacyThreadOf`); whether one existed. The old one goes first: the service's checkpointer
 * adopts an old thread when the session's own is read and missing (resilience/legacy-threads.ts),
 * which would copy a checkpoint only to delete it.
 */
async function deleteThreads(checkpointer: BaseCheckpointSaver, scope: MemoryScope): Promise<boolean> {
  const threadId = threadIdOf(scope);
  const ids = [legacyThreadOf(threadId), threadId].filter((id) => id !== undefined);
  let existed = false;
  for (const id of ids) {
    if ((await checkpointer.getTuple({ configurable: { thread_id: id } })) !== undefined) existed = true;
    await checkpointer.deleteThread(id);
  }
  return existed;
}

/** Deletes every item under `prefix` (in one transaction where the store supports prefix deletion); returns how many were deleted. */
async function deletePrefix(store: BaseStore, prefix: string[]): Promise<number> {
  if (supportsOf(store).prefixDeletion) return capable(store, "prefixDeletion").deleteNamespacePrefix(prefix);
  let deleted = 0;
  // Each round deletes the page it read, so the next round reads from the start again.
  for (;;) {
    const page = await store.search(prefix, { limit: PAGE });
    if (page.length === 0) return deleted;
    await store.batch(page.map((item): Operation => ({ namespace: item.namespace, key: item.key, value: null })));
    deleted += page.length;
  }
}

/** Every item directly in `namespace` (none below it), page by page, however many there are. */
async function itemsIn(store: BaseStore, namespace: string[]): Promise<Item[]> {
  const items: Item[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await store.search(namespace, { limit: PAGE, offset });
    for (const item of page) if (item.namespace.length === namespace.length) items.push(item);
    if (page.length < PAGE) return items;
  }
}
