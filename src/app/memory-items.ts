import type { BaseStore, Operation } from "@langchain/langgraph-checkpoint";
import { invalidInput } from "../errors.js";
import { log } from "../logger.js";
import { deleteFact, editFact, findFact, historyOf, type FactDeletion, type FactVersion, type FactVersions } from "../memory/fact-edits.js";
import { restoreDeleted, restoreVersion, sweepUndo, undoRecordWrite } from "../memory/fact-undo.js";
import { redactor } from "../memory/redaction.js";
import { detectAttributeUpdates } from "../rules/attribute-detect.js";
import { boundedInTime } from "../rules/facts/expiry.js";
import { sessionIdsOf } from "../memory/session-list.js";
import { loadFacts, type FactUpdate } from "../memory/facts.js";
import { deleteRecord, getEvent, getSummary, listEvents, listSummaries, updateEvent, updateSummary } from "../memory/item-edits.js";
import {
  eventChangeSchema,
  factChangeSchema,
  parseChange,
  parsePage,
  textChangeSchema,
  type EventChangeInput,
  type FactChangeInput,
  type PageInput,
  type TextChangeInput,
} from "../memory/item-schemas.js";
import { deleteEntity, type EntityDeletion } from "../memory/entities/forget-entity.js";
import { deleteRelation, type RelationDeletion } from "../memory/entities/forget-relation.js";
import { deleteMessage, getMessage, listMessages, updateMessage, type MessageDeletion } from "../memory/message-edits.js";
import { namespaces } from "../memory/namespaces.js";
import type { TurnLock, UserLock } from "../memory/ports/persistence.js";
import type { EventRecord, FactRecord, SummaryRecord, TranscriptRecord } from "../memory/records.js";
import { threadIdOf, userKeyOf, validateId, validateScope, validateUser, type MemoryScope, type UserScope } from "../memory/scope.js";
import { getTurnContext, type TurnContextRecord } from "../memory/turn-contexts.js";
import { searchItems, type ItemHit, type ItemSearchRequest } from "../memory/item-search.js";
import type { GraphDeps } from "../graph/nodes/deps.js";
import { NO_SESSION_WINDOWS, type SessionWindowEdits } from "./session-window-edits.js";

/**
 * Memory a person can see and correct, one item at a time: facts (with history and pins), events,
 * summaries and stored messages, each listed, read, corrected and deleted by id. Changes of a
 * user's long-term layers hold the user's edit lock (one writer of corrections per user); changes
 * of a message hold its session's turn lock, so no turn of that session runs in between.
 */


/** What one person's correction of memory can do, per item (see the HTTP routes under /v1/users/{id}). */
export interface MemoryItems {
  /** Every fact of the user, current and superseded, newest first (`current`: only those true now). */
  listFacts(user: UserScope, options?: { current?: boolean }): Promise<FactRecord[]>;
  /** One fact and every version of its key, oldest first, each with what superseded it. FACT_NOT_FOUND. */
  getFact(user: UserScope, factId: string): Promise<{ fact: FactRecord; history: FactVersion[] }>;
  /**
   * Edits the current version of a fact: a new value (a new version, `source: "edit"`), a pin, an
   * unpin. FACT_STALE when `factId` is no longer current (a retry of the same edit answers the
   * version it made); FACT_NOT_FOUND. Returns the current version.
   */
  updateFact(user: UserScope, factId: string, change: FactChangeInput): Promise<FactRecord>;
  /**
   * Deletes one version of a fact (`versions: "all"`: every version of its key) and takes its value
   * out of every layer the model reads: stored messages, events, summaries, turn results, the
   * session windows (see `deleteFact` in memory/fact-edits.ts). Idempotent (0 the second time).
   */
  deleteFact(user: UserScope, factId: string, options?: { versions?: FactVersions }): Promise<FactDeletion>;
  /**
   * Undoes a person's change of a fact: `factId` deleted within the last minute comes back with the
   * items its delete cut (see memory/fact-undo.ts); a version an edit replaced is current again and the
   * edit's version goes (FACT_STALE when it has been changed since). FACT_NOT_FOUND when neither.
   */
  restoreFact(user: UserScope, factId: string): Promise<FactRecord>;
  /**
   * Deletes an entity of the user's graph (by key or name) with the rule of a fact's delete: its
   * name is cut out of every layer the model reads, the session windows too, and the facts whose
   * value names it are deleted (see memory/entities/forget-entity.ts). Idempotent (0 the second time).
   */
  deleteEntity(user: UserScope, entity: string): Promise<EntityDeletion>;
  /** Deletes every version of the edge `type` from `entity` to `to` (keys or names); see memory/entities/forget-relation.ts. Idempotent. */
  deleteRelation(user: UserScope, entity: string, relation: { type: string; to: string }): Promise<RelationDeletion>;
  /** A page of the user's events, newest first; `type` keeps one event type. */
  listEvents(user: UserScope, options?: PageInput & { type?: string }): Promise<EventRecord[]>;
  getEvent(user: UserScope, eventId: string): Promise<EventRecord>;
  updateEvent(user: UserScope, eventId: string, change: EventChangeInput): Promise<EventRecord>;
  /** Deletes one event; idempotent (0 the second time). */
  deleteEvent(user: UserScope, eventId: string): Promise<{ events: number }>;
  /** A page of the user's summaries, newest first (stale ones marked `stale: true`). */
  listSummaries(user: UserScope, page?: PageInput): Promise<SummaryRecord[]>;
  getSummary(user: UserScope, summaryId: string): Promise<SummaryRecord>;
  updateSummary(user: UserScope, summaryId: string, change: TextChangeInput): Promise<SummaryRecord>;
  deleteSummary(user: UserScope, summaryId: string): Promise<{ summaries: number }>;
  /** A page of the user's stored messages (one session's with `sessionId`), newest written first. */
  listMessages(user: UserScope & { sessionId?: string }, page?: PageInput): Promise<TranscriptRecord[]>;
  getMessage(scope: MemoryScope, messageId: string): Promise<TranscriptRecord>;
  /** Rewrites a message's text and re-indexes it (text and vector); summaries covering it are marked stale. */
  updateMessage(scope: MemoryScope, messageId: string, change: TextChangeInput): Promise<TranscriptRecord>;
  /** Deletes a message with what was derived from it (see `deleteMessage` in memory/message-edits.ts). Idempotent. */
  deleteMessage(scope: MemoryScope, messageId: string): Promise<MessageDeletion>;
  /** What the memory context of the turn that answered `messageId` (its user message) held; TURN_CONTEXT_NOT_FOUND. */
  turnContext(scope: MemoryScope, messageId: string): Promise<TurnContextRecord>;
  /**
   * Searches every layer (or `kinds`) of a user's memory with filters (session, time range, event
   * type, minimum importance, field equality), each hit with the parts of its score.
   */
  searchItems(request: ItemSearchRequest): Promise<ItemHit[]>;
}

/** An item id: any non-empty string of at most 512 characters (a fact's id carries its key, so it may be longer than a scope id). */
function itemId(field: string, id: unknown): string {
  if (typeof id !== "string" || id.trim() === "") throw invalidInput(field, "must be a non-empty string", "INVALID_ID");
  if (id.length > 512) throw invalidInput(field, "must be at most 512 characters", "INVALID_ID");
  return id;
}

/** Which versions a fact's delete takes: "one" (the default) or "all"; INVALID_INPUT otherwise. */
function factVersions(versions: unknown): FactVersions {
  if (versions === undefined) return "one";
  if (versions === "one" || versions === "all") return versions;
  throw invalidInput("versions", 'must be "one" or "all"');
}

/** The facts a corrected message states, as classify_event learns them offline (the profile's keys, bounded in time). */
function offlineFacts(deps: Pick<GraphDeps, "profile">, text: string, now: Date): FactUpdate[] {
  const found = detectAttributeUpdates(text);
  return boundedInTime(deps.profile ? deps.profile.fit(found) : found, text, now);
}

/**
 * Takes `values` out of every session window of `user` (see `SessionWindowEdits.redact`), each under
 * its session's turn lock, taken after the user's lock is let go, never inside it.
 */
async function redactWindows(store: BaseStore, lock: TurnLock, windows: SessionWindowEdits, user: UserScope, values: readonly string[]): Promise<void> {
  const redact = redactor(values);
  if (!redact) return;
  for (const sessionId of await sessionIdsOf(store, user)) {
    const threadId = threadIdOf({ ...user, sessionId });
    await lock.run(threadId, () => windows.redact(threadId, redact));
  }
}

/**
 * Runs a removal of a user's text (a fact's values, an entity's name, a message deleted or rewritten)
 * once none of the user's turns runs in any process: the user's lock alone, as forgetting takes it.
 * A turn begun before would otherwise write what it takes out after it (a reply, summary or title).
 */
function userAlone(userLock: UserLock) {
  return <T>(user: Pick<UserScope, "tenantId" | "userId">, work: () => Promise<T>): Promise<T> => userLock.exclusive(userKeyOf(validateUser(user)), work);
}

/** Runs work as the one writer of corrections of a user (a lock key no thread id takes: thread ids have three parts). */
function userLocked(lock: TurnLock) {
  return <T>(user: UserScope, work: (scope: UserScope) => Promise<T>): Promise<T> => {
    const scope = validateUser(user);
    return lock.run(userKeyOf(scope), () => work(scope));
  };
}

type Deps = Pick<GraphDeps, "now" | "newId" | "limits" | "embeddings" | "profile">;

/** The fact methods of `memoryItems`: list, read with history, edit, delete (with the deleted values cut out of every layer). */
function factMethods(store: BaseStore, locks: ItemLocks, deps: Deps, windows: SessionWindowEdits): Pick<MemoryItems, "listFacts" | "getFact" | "updateFact" | "deleteFact" | "restoreFact"> {
  const { turn: lock } = locks;
  const asUser = userLocked(lock);
  const alone = userAlone(locks.user);
  return {
    async listFacts(user, options = {}) {
      const facts = await loadFacts(store, validateUser(user));
      return options.current ? facts.filter((fact) => fact.validTo === null) : facts;
    },
    async getFact(user, factId) {
      const facts = await loadFacts(store, validateUser(user));
      const fact = findFact(facts, itemId("factId", factId));
      return { fact, history: historyOf(facts, fact) };
    },
    updateFact: (user, factId, raw) => {
      const change = parseChange(factChangeSchema, raw);
      return asUser(user, async (scope) => {
        const fact = await editFact(store, scope, itemId("factId", factId), change, { now: deps.now().toISOString(), editId: deps.newId() });
        log.info("memory.fact_edited", { tenant: scope.tenantId, key: fact.key, pinned: Boolean(fact.pinned) });
        return fact;
      });
    },
    deleteFact: (user, factId, options = {}) => {
      const versions = factVersions(options.versions);
      const id = itemId("factId", factId);
      const undoRecord = (scope: UserScope) => (deleted: FactRecord[], writes: Operation[]) => undoRecordWrite(store, scope, id, deleted, writes, deps.now());
      return alone(user, () =>
        asUser(user, async (scope) => {
          await sweepUndo(store, scope, deps.now());
          return deleteFact(store, scope, id, versions, { undoRecord: undoRecord(scope) });
        }).then(async ({ values, ...deleted }) => {
          const scope = validateUser(user);
          log.info("memory.fact_deleted", { tenant: scope.tenantId, versions, ...deleted });
          await redactWindows(store, lock, windows, scope, values);
          return deleted;
        }),
      );
    },
    restoreFact: (user, factId) => {
      const id = itemId("factId", factId);
      return asUser(user, async (scope) => {
        const fact = (await restoreDeleted(store, scope, id, deps.now())) ?? (await restoreVersion(store, scope, id));
        log.info("memory.fact_restored", { tenant: scope.tenantId, key: fact.key });
        return fact;
      });
    },
  };
}

/** The locks of the per-item API: threads' and users' turn locks (`turn`), and the user lock turns share (`user`). */
export type ItemLocks = { turn: TurnLock; user: UserLock };

/**
 * The per-item API over `store`, serialised by `locks`; a message's correction or delete reaches
 * its session's checkpointed window (and node memory) through `windows`. Either write may fail
 * alone (the session store down); the call then fails, and its retry completes both.
 */
export function memoryItems(store: BaseStore, locks: ItemLocks, deps: Deps, windows: SessionWindowEdits = NO_SESSION_WINDOWS): MemoryItems {
  const { turn: lock } = locks;
  const asUser = userLocked(lock);
  const alone = userAlone(locks.user);
  const asSession = <T>(session: MemoryScope, work: (scope: MemoryScope) => Promise<T>): Promise<T> => {
    const scope = validateScope(session);
    return lock.run(threadIdOf(scope), () => work(scope));
  };
  return {
    ...factMethods(store, locks, deps, windows),
    deleteEntity: (user, entity) =>
      alone(user, () =>
        asUser(user, (scope) => deleteEntity(store, scope, itemId("entity", entity))).then(async ({ values, ...deleted }) => {
          const scope = validateUser(user);
          log.info("memory.entity_deleted", { tenant: scope.tenantId, ...deleted });
          await redactWindows(store, lock, windows, scope, values);
          return deleted;
        }),
      ),
    deleteRelation: (user, entity, relation) =>
      asUser(user, async (scope) => {
        const deleted = await deleteRelation(store, scope, itemId("entity", entity), { type: itemId("type", relation.type), to: itemId("to", relation.to) });
        log.info("memory.relation_deleted", { tenant: scope.tenantId, type: relation.type, ...deleted });
        return deleted;
      }),
    listEvents: (user, options = {}) => {
      const { type, ...page } = options;
      return listEvents(store, validateUser(user), parsePage(page), type);
    },
    getEvent: (user, eventId) => getEvent(store, validateUser(user), itemId("eventId", eventId)),
    updateEvent: (user, eventId, raw) => {
      const change = parseChange(eventChangeSchema, raw);
      return asUser(user, (scope) => updateEvent(store, scope, itemId("eventId", eventId), change));
    },
    deleteEvent: (user, eventId) =>
      asUser(user, async (scope) => ({ events: await deleteRecord(store, namespaces.events(scope), itemId("eventId", eventId)) })),
    listSummaries: (user, page) => listSummaries(store, validateUser(user), parsePage(page)),
    getSummary: (user, summaryId) => getSummary(store, validateUser(user), itemId("summaryId", summaryId)),
    updateSummary: (user, summaryId, raw) => {
      const { text } = parseChange(textChangeSchema, raw);
      return asUser(user, (scope) => updateSummary(store, scope, itemId("summaryId", summaryId), text));
    },
    deleteSummary: (user, summaryId) =>
      asUser(user, async (scope) => ({ summaries: await deleteRecord(store, namespaces.summaries(scope), itemId("summaryId", summaryId)) })),
    listMessages: (user, page) => {
      const scope = { ...validateUser(user), ...(user.sessionId === undefined ? {} : { sessionId: validateId("sessionId", user.sessionId) }) };
      return listMessages(store, scope, parsePage(page));
    },
    getMessage: (scope, messageId) => getMessage(store, validateScope(scope), itemId("messageId", messageId)),
    updateMessage: (session, messageId, raw) => {
      const { text } = parseChange(textChangeSchema, raw);
      return alone(session, () =>
        asSession(session, async (scope) => {
          const id = itemId("messageId", messageId);
          const now = deps.now();
          const updated = await updateMessage(store, scope, id, text, { relearn: (said) => offlineFacts(deps, said, now), now });
          await windows.rewrite(threadIdOf(scope), id, text);
          return updated;
        }),
      );
    },
    deleteMessage: (session, messageId) =>
      alone(session, () =>
        asSession(session, async (scope) => {
          const id = itemId("messageId", messageId);
          // Out of the session's window and node memory too (also when a retry finds the stored message gone).
          const fromWindow = await windows.remove(threadIdOf(scope), id);
          const deleted = await deleteMessage(store, scope, id);
          log.info("memory.message_deleted", { tenant: scope.tenantId, ...deleted, fromWindow });
          return deleted;
        }),
      ),
    turnContext: (scope, messageId) => getTurnContext(store, validateScope(scope), itemId("messageId", messageId)),
    searchItems: (request) => searchItems(store, request, { limits: deps.limits, embeddings: deps.embeddings }),
  };
}

/** Every method of `items` refused once the graph is closed, logging to the graph's logger. */
export function guardMemoryItems(items: MemoryItems, guard: { scoped: <T>(work: () => T) => T; refuseWhenClosed: () => void }): MemoryItems {
  const guarded = {} as Record<string, unknown>;
  for (const [name, method] of Object.entries(items) as [string, (...args: unknown[]) => Promise<unknown>][]) {
    guarded[name] = (...args: unknown[]) =>
      guard.scoped(async () => {
        guard.refuseWhenClosed();
        return method(...args);
      });
  }
  return guarded as unknown as MemoryItems;
}
