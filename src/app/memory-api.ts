import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { messageOf } from "../errors.js";
import { log } from "../logger.js";
import { metrics } from "../telemetry.js";
import { saveEvent } from "../memory/events.js";
import { exportUserMemory } from "../memory/export.js";
import { saveFacts } from "../memory/facts.js";
import { applyImport, planImport, type ImportCounts, type ImportPlan } from "../memory/import.js";
import { parseImport, type ImportInput, type UserMemoryExport } from "../memory/import-schema.js";
import type { MemoryScope } from "../memory/scope.js";
import { validateId } from "../memory/scope.js";
import { searchMemory, type MemorySearchRequest, type MemorySearchResult } from "../memory/search.js";
import { isTransientError, withRetry } from "../models/chat-model.js";
import type { ClassifiedEvent } from "../models/event-schema.js";
import { classifyByKeywords } from "../models/keyword-classifier.js";
import { classifyWithModel } from "../models/structured.js";
import { retryOptions, type GraphDeps } from "../nodes/deps.js";

/**
 * Memory as an API, beside turns: search a user's memory, import past sessions, export every
 * layer. The facade wires these to its persistence and models (see `createMemoryGraph`).
 */

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

export interface ImportOptions {
  /**
   * Classify each imported user message as a live turn's is classified (the model when one is
   * configured, else the keyword classifier): events at or over the importance threshold, facts
   * dated by the message. Off by default: an import then writes the transcript and its index only.
   */
  classify?: boolean;
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
   * (transcript and recall index; classification into events and facts with `classify`). Idempotent
   * by message id; a bad element fails it all, naming its index and field, and nothing is stored.
   */
  importSessions(user: UserScope, input: ImportInput, options?: ImportOptions): Promise<ImportResult>;
  /** Every layer of a user's memory as one document that `importSessions` takes back (after answered turns' upkeep). */
  exportUser(user: UserScope): Promise<UserMemoryExport>;
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
  };
}

/** The memory API over `store`, with the graph's models and limits. */
export function memoryApi(store: BaseStore, deps: GraphDeps): MemoryApi {
  return {
    search: (request) => searchMemory(store, request, { limits: deps.limits, embeddings: deps.embeddings }),
    async importSessions(user, input, options = {}) {
      const scope = userScopeOf(user);
      const parsed = parseImport(input);
      const plan = await planImport(store, scope, parsed, Array.isArray(input) ? "" : "sessions");
      await applyImport(store, plan);
      const classified = options.classify ? await classifyImported(store, deps, plan) : 0;
      log.info("memory.imported", { tenant: scope.tenantId, sessions: plan.counts.sessions, ...plan.counts.messages, classified });
      metrics()?.importMessages.record(plan.counts.messages.imported + plan.counts.messages.skipped, { tenant: scope.tenantId });
      return { ...plan.counts, classified };
    },
    exportUser: (user) => exportUserMemory(store, userScopeOf(user)),
  };
}

function userScopeOf(user: UserScope): UserScope {
  return { tenantId: validateId("tenantId", user.tenantId), userId: validateId("userId", user.userId) };
}

/**
 * Classifies the imported user messages in order, each session keeping its last intent and active
 * entities for the next message as a live session does; events and facts are dated by the message.
 * A model that fails falls back to the keyword classifier (logged), as classify_event does.
 */
async function classifyImported(store: BaseStore, deps: GraphDeps, plan: ImportPlan): Promise<number> {
  const model = deps.classifierModel === undefined ? deps.chatModel : deps.classifierModel;
  const contexts = new Map<string, { lastIntent?: string; activeEntities: ClassifiedEvent["entities"] }>();
  let classified = 0;
  for (const { scope, record } of plan.transcripts.flatMap((t) => t.records.map((r) => ({ scope: t.scope, record: r })))) {
    if (record.role !== "user" || record.recall === false) continue;
    const context = contexts.get(scope.sessionId) ?? { activeEntities: [] };
    let fromModel: ClassifiedEvent | undefined;
    if (model) {
      try {
        fromModel = await withRetry(() => classifyWithModel(model, record.text, context), { ...retryOptions(deps), isRetryable: isTransientError });
      } catch (error) {
        log.warn("classifier_fallback", { reason: messageOf(error), source: "import" });
      }
    }
    const event = fromModel ?? classifyByKeywords(record.text, context);
    const classifiedBy = fromModel ? "model" : "keywords";
    if (event.importance >= deps.limits.importanceThreshold) {
      const { type, importance, intent, entities, language, payload } = event;
      const base = { id: record.id, messageId: record.id, sessionId: scope.sessionId, createdAt: record.createdAt, text: record.text };
      await saveEvent(store, scope, { ...base, type, importance, intent, entities, language, payload, classifiedBy }, deps.limits.retention, deps.now());
    }
    await saveFacts(store, scope, event.attributeUpdates, { messageId: record.id, sessionId: scope.sessionId, now: record.createdAt });
    contexts.set(scope.sessionId, {
      lastIntent: event.intent || context.lastIntent,
      activeEntities: event.entities.length > 0 ? event.entities : context.activeEntities,
    });
    classified += 1;
  }
  return classified;
}
