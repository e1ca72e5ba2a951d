import type { BaseStore, Operation } from "@langchain/langgraph-checkpoint";
import { messageOf } from "../errors.js";
import { log } from "../logger.js";
import { USER_NODE } from "../memory/entities/entity-graph.js";
import type { Extraction } from "../memory/entities/extract.js";
import { extractionOfClassified } from "../memory/entities/model-extraction.js";
import { eventPut } from "../memory/events.js";
import { factPut, loadFacts, upsertFacts } from "../memory/facts.js";
import type { ImportPlan } from "../memory/import.js";
import type { FactRecord } from "../memory/records.js";
import type { MemoryScope } from "../memory/scope.js";
import { isTransientError, withRetry } from "../models/chat-model.js";
import type { ClassifiedEvent } from "../rules/event-schema.js";
import { classifyByKeywords } from "../rules/keyword-classifier.js";
import { classifyWithModel } from "../models/structured.js";
import { planClassification } from "../rules/classify-gate.js";
import { classifierOf, retryOptions, type GraphDeps } from "../graph/nodes/deps.js";
import { factUpdatesOf } from "../graph/nodes/classify-event.js";

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/**
 * What classifying an import gives: the writes of its events and facts, made with the import's own,
 * and, by message id, the entities and relations the model read in each message it classified,
 * which the import's graph merges with the rules' (`applyImport`), as a live turn's does.
 */
export interface ImportClassification {
  puts: Operation[];
  events: number;
  facts: number;
  classified: number;
  graph: Map<string, Extraction>;
}

/** Longest stretch of synchronous work between two yields to the event loop. */
const SLICE_MS = 10;

/**
 * Classifies the imported user messages in order, each session keeping its last intent and active
 * entities for the next message as a live session does; events and facts are dated by the message,
 * a changed fact superseding the one before it as `saveFacts` would. Writes nothing: the caller
 * writes the returned puts with the import, in one batch. A model that fails falls back to the
 * keyword classifier (logged), as classify_event does, and the classification policy
 * (`deps.classify`) decides which messages the model sees, as it does there. Yields to the event loop every few
 * milliseconds, so a long import does not hold other requests up.
 */
export async function classifyImported(store: BaseStore, deps: GraphDeps, user: UserScope, plan: ImportPlan): Promise<ImportClassification> {
  const model = classifierOf(deps);
  const contexts = new Map<string, { lastIntent?: string; activeEntities: ClassifiedEvent["entities"] }>();
  let facts: FactRecord[] = await loadFacts(store, user);
  const factWrites = new Map<string, FactRecord>();
  const eventPuts: Operation[] = [];
  const graph = new Map<string, Extraction>();
  let classified = 0;
  let sliceStart = performance.now();
  for (const { scope, record } of plan.transcripts.flatMap((t) => t.records.map((r) => ({ scope: t.scope, record: r })))) {
    if (record.role !== "user" || record.recall === false) continue;
    const context = { ...(contexts.get(scope.sessionId) ?? { activeEntities: [] }), profile: deps.profile?.prompt };
    const plan = planClassification(deps.classify ?? "auto", model !== null, record.text, context);
    let fromModel: ClassifiedEvent | undefined;
    if (model && plan.ask) {
      try {
        fromModel = await withRetry(() => classifyWithModel(model, record.text, context), { ...retryOptions(deps), isRetryable: isTransientError });
      } catch (error) {
        log.warn("classifier_fallback", { reason: messageOf(error), source: "import" });
      }
    }
    const event = fromModel ?? plan.local ?? classifyByKeywords(record.text, context);
    // "I" is the message's speaker, as the rules read it: the named one, else the user.
    if (fromModel) graph.set(record.id, extractionOfClassified(fromModel.entities, fromModel.relations ?? [], record.speaker?.trim() || USER_NODE));
    if (event.importance >= deps.limits.importanceThreshold) {
      const { type, importance, intent, entities, language, payload } = event;
      const base = { id: record.id, messageId: record.id, sessionId: scope.sessionId, createdAt: record.createdAt, text: record.text };
      eventPuts.push(eventPut(user, { ...base, type, importance, intent, entities, language, payload, classifiedBy: fromModel ? "model" : "keywords" }));
    }
    const updates = factUpdatesOf(deps, event, record.text, new Date(record.createdAt));
    const writes = upsertFacts(facts, updates, { messageId: record.id, sessionId: scope.sessionId, now: record.createdAt });
    if (writes.length > 0) {
      const ids = new Set(writes.map((fact) => fact.id));
      facts = [...facts.filter((fact) => !ids.has(fact.id)), ...writes];
      for (const fact of writes) factWrites.set(fact.id, fact);
    }
    contexts.set(scope.sessionId, {
      lastIntent: event.intent || context.lastIntent,
      activeEntities: event.entities.length > 0 ? event.entities : context.activeEntities,
    });
    classified += 1;
    if (performance.now() - sliceStart >= SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  const factPuts = [...factWrites.values()].map((fact): Operation => factPut(user, fact));
  return { puts: [...eventPuts, ...factPuts], events: eventPuts.length, facts: factPuts.length, classified, graph };
}
