import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { entityGraphWrites } from "./entities/entity-graph.js";
import type { Extraction } from "./entities/extract.js";
import { enforceEventCap, eventPut } from "./events.js";
import { factPut, loadFacts, upsertFacts, type FactUpdate } from "./facts.js";
import type { EventRecord, FactRecord, TranscriptRecord } from "./records.js";
import type { RetentionPolicy } from "./retention-policy.js";
import type { MemoryScope } from "./scope.js";

/** What one classified message leaves in long-term memory (see `saveClassified`). */
export interface ClassifiedWrites {
  /** The event, when it is important enough to keep; null for none. */
  event: EventRecord | null;
  /** The attribute updates it states (applied as `saveFacts` applies them). */
  facts: readonly FactUpdate[];
  /** The message the facts come from, and the time they begin at. */
  source: { messageId: string; sessionId: string; now: string };
  retention: RetentionPolicy;
  now: Date;
  /** The message and a model's extraction of its entities and relations: merged with the rules' and written to the entity graph. */
  graph?: { message: TranscriptRecord; extraction: Extraction };
}

/**
 * Stores what one classified message leaves: its event and the fact records its updates write
 * (`upsertFacts` over the user's facts, read first) and, with `graph`, the entity graph's nodes it
 * changes (see `entityGraphWrites`), in one batch — one write transaction on our
 * stores, so the event and a fact's supersession become visible together. Then, when an event was
 * saved, the user's events are held to `retention.maxEventsPerUser` (`enforceEventCap`). Returns
 * the facts written.
 */
export async function saveClassified(store: BaseStore, scope: Pick<MemoryScope, "tenantId" | "userId">, writes: ClassifiedWrites): Promise<FactRecord[]> {
  const facts = writes.facts.length > 0 ? upsertFacts(await loadFacts(store, scope), writes.facts, writes.source) : [];
  const graph = writes.graph ? await entityGraphWrites(store, scope, [writes.graph.message], new Map([[writes.graph.message.id, writes.graph.extraction]])) : [];
  const puts = [...(writes.event ? [eventPut(scope, writes.event)] : []), ...facts.map((fact) => factPut(scope, fact)), ...graph];
  if (puts.length > 0) await store.batch(puts);
  if (writes.event) await enforceEventCap(store, scope, writes.retention, writes.now);
  return facts;
}
