import { setImmediate } from "node:timers/promises";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../errors.js";
import { log } from "../logger.js";
import { enforceEventCap } from "../memory/events.js";
import { metrics } from "../telemetry.js";
import { exportUserMemory } from "../memory/export.js";
import { applyImport, planImport, type ImportCounts } from "../memory/import.js";
import { parseImport, type ImportInput, type UserMemoryExport } from "../memory/import-schema.js";
import { validateUser, type UserScope } from "../memory/scope.js";
import { searchMemory, type MemorySearchRequest, type MemorySearchResult } from "../memory/search.js";
import { listSessions, type SessionPage } from "../memory/session-list.js";
import { getEntity, listEntities, type EntityDetail, type EntitySummary } from "../memory/entities/entity-reads.js";
import { listUsers, userOverview, type UserListing, type UserPage } from "../memory/user-list.js";
import type { GraphDeps } from "../graph/nodes/deps.js";
import { classifyImported } from "./import-classify.js";

/**
 * Memory as an API, beside turns: search a user's memory, import past sessions, export every
 * layer. The facade wires these to its persistence and models (see `createMemoryGraph`).
 */


export interface ImportOptions {
  /**
   * Classify each imported user message as a live turn's is classified (the model when one is
   * configured, else the keyword classifier): events at or over the importance threshold, facts
   * dated by the message. Off by default: an import then writes the transcript and its index only.
   */
  classify?: boolean;
  /**
   * Import an export document of another user as this one: must equal the user imported into.
   * Without it, a document whose `userId` is not that user's is refused (IMPORT_USER_MISMATCH).
   */
  asUser?: string;
}

/** What an import did; `classified` counts the user messages classified (0 unless asked for). */
export interface ImportResult extends ImportCounts {
  classified: number;
}

/** Memory beside turns: what a `MemoryGraph` offers to search, import and export it. */
export interface MemoryApi {
  /**
   * A user's past messages ranked for `query` by recall's own ranking (one session's with
   * `sessionId`), each with its lexical, neighbour-context, vector and fused scores; with
   * `withContext`, also the memory block a turn with this message would give the model.
   */
  search(request: MemorySearchRequest): Promise<MemorySearchResult>;
  /**
   * Imports past sessions (`[{ sessionId, startedAt, messages: [{ id, role, text, speaker?, createdAt? }] }]`)
   * or a whole `exportUser` document into the user's memory, through the write path of live turns
   * (transcript and recall index; classification into events and facts with `classify`), in one
   * store batch (one transaction). Idempotent by message id, and the counts are what was written;
   * a bad element, a record pointing at a session or message neither the import nor the store holds
   * (UNKNOWN_REFERENCE), an export of another user without `asUser` (IMPORT_USER_MISMATCH) or a
   * failed write fails it all, and nothing is stored.
   */
  importSessions(user: UserScope, input: ImportInput, options?: ImportOptions): Promise<ImportResult>;
  /** Every layer of a user's memory as one document that `importSessions` takes back (after answered turns' upkeep). */
  exportUser(user: UserScope): Promise<UserMemoryExport>;
  /**
   * A user's sessions, newest activity first, each with a title (the model's when one was made,
   * else from the first user message), message count, first and last activity; `limit` (1–100,
   * default 20) from `offset` (default 0).
   */
  listSessions(user: UserScope, page?: { limit?: number; offset?: number }): Promise<SessionPage>;
  /**
   * The users of a tenant, newest activity first, each with its session, current-fact and message
   * counts; `prefix` narrows to ids that start with it; `limit` (1–100, default 20) from `offset`.
   */
  listUsers(tenantId: string, page?: { prefix?: string; limit?: number; offset?: number }): Promise<UserPage>;
  /** One user's activity and counts; USER_NOT_FOUND when nothing of the user is stored. */
  getUser(user: UserScope): Promise<UserListing>;
  /**
   * The entities of a user's graph (people, places, organisations named in what they said), most
   * recently updated first; `query` keeps those whose name or an alias contains it; `limit`
   * (1–500, default 50) from `offset`.
   */
  listEntities(user: UserScope, options?: { query?: string; limit?: number; offset?: number }): Promise<EntitySummary[]>;
  /** One entity (by key or name) with its mentions and its relations over time, each with its sources; NOT_FOUND. */
  getEntity(user: UserScope, entity: string): Promise<EntityDetail>;
}

/**
 * The API as the facade offers it: each call refused once the graph is closed, logging to the
 * graph's logger; an export waits for answered turns' upkeep (a summary being made) first.
 */
export function guardMemoryApi(
  api: MemoryApi,
  guard: { scoped: <T>(work: () => T) => T; refuseWhenClosed: () => void; settled: () => Promise<void> },
): MemoryApi {
  const { scoped, refuseWhenClosed, settled } = guard;
  const open = <T>(work: () => Promise<T>): Promise<T> =>
    scoped(async () => {
      refuseWhenClosed();
      return work();
    });
  return {
    search: (request) => open(() => api.search(request)),
    importSessions: (user, input, options) => open(() => api.importSessions(user, input, options)),
    exportUser: (user) => open(() => settled().then(() => api.exportUser(user))),
    listSessions: (user, page) => open(() => api.listSessions(user, page)),
    listUsers: (tenantId, page) => open(() => api.listUsers(tenantId, page)),
    getUser: (user) => open(() => api.getUser(user)),
    listEntities: (user, options) => open(() => api.listEntities(user, options)),
    getEntity: (user, entity) => open(() => api.getEntity(user, entity)),
  };
}

/** The memory API over `store`, with the graph's models and limits. */
export function memoryApi(store: BaseStore, deps: GraphDeps): MemoryApi {
  return {
    search: (request) => searchMemory(store, request, { limits: deps.limits, embeddings: deps.embeddings }),
    async importSessions(user, input, options = {}) {
      const scope = validateUser(user);
      const parsed = parseImport(input);
      checkImportUser(scope, parsed.userId, options.asUser);
      // Between the long synchronous steps of a large import, other requests get their turn.
      await setImmediate();
      const plan = await planImport(store, scope, parsed, Array.isArray(input) ? "" : "sessions");
      await setImmediate();
      const classification = options.classify ? await classifyImported(store, deps, scope, plan) : { puts: [], events: 0, facts: 0, classified: 0, graph: new Map() };
      // One batch: the import is stored whole or not at all.
      const applied = await applyImport(store, plan, classification.puts, { factKeys: deps.limits.recall.graph.factKeys, models: classification.graph });
      if (classification.events > 0) await enforceEventCap(store, scope, deps.limits.retention, deps.now());
      const { classified } = classification;
      const counts = { ...applied, events: applied.events + classification.events, facts: applied.facts + classification.facts };
      log.info("memory.imported", { tenant: scope.tenantId, sessions: counts.sessions, ...counts.messages, events: counts.events, facts: counts.facts, entities: counts.entities, classified });
      metrics()?.importMessages.record(counts.messages.imported + counts.messages.skipped, { tenant: scope.tenantId });
      return { ...counts, classified };
    },
    exportUser: (user) => exportUserMemory(store, validateUser(user)),
    listSessions: (user, page = {}) => listSessions(store, validateUser(user), { limit: page.limit ?? 20, offset: page.offset ?? 0 }),
    listUsers: (tenantId, page = {}) => listUsers(store, tenantId, { ...(page.prefix === undefined ? {} : { prefix: page.prefix }), limit: page.limit ?? 20, offset: page.offset ?? 0 }),
    getUser: (user) => userOverview(store, validateUser(user)),
    listEntities: (user, options) => listEntities(store, validateUser(user), options),
    getEntity: (user, entity) => getEntity(store, validateUser(user), entity),
  };
}

/**
 * Refuses (IMPORT_USER_MISMATCH, naming `userId`) an export document of another user, unless the
 * caller says so with `asUser` equal to the user imported into.
 */
function checkImportUser(user: UserScope, documentUserId: string | undefined, asUser: string | undefined): void {
  if (asUser !== undefined && asUser !== user.userId) {
    throw new MemoryGraphError("IMPORT_USER_MISMATCH", `asUser: must be the user imported into (${user.userId})`, { kind: "user", field: "asUser" });
  }
  if (documentUserId === undefined || documentUserId === user.userId || asUser === user.userId) return;
  throw new MemoryGraphError(
    "IMPORT_USER_MISMATCH",
    `userId: the document was exported from user ${documentUserId}, not ${user.userId}; to import it as ${user.userId} anyway, say so explicitly (over HTTP ?as_user=${user.userId}, in the library asUser)`,
    { kind: "user", field: "userId" },
  );
}

