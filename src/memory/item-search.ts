import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { z } from "zod";
import { currentFacts, loadFacts } from "./facts.js";
import { parseWith } from "./import-schema.js";
import type { MemoryLimits } from "./limits.js";
import { namespaces } from "./namespaces.js";
import { tokenize } from "./ranking/index.js";
import type { EventRecord, SummaryRecord } from "./records.js";
import { idSchema } from "./scope.js";
import { listAll, valuesOf } from "./store-io.js";
import { searchSimilar } from "./similar.js";

/**
 * Search across a user's memory layers with filters: kind (message, fact, event, summary), session,
 * time range, event type, minimum importance, and equality on the stored record's own fields (or an
 * event's payload). Messages are ranked by recall's own ranking (lexical, neighbour context, vector,
 * fused: best message 1); facts, events and summaries, which are not indexed, by the share of the
 * query's terms they hold (`lexical`, also their `fused`). Every hit carries the parts that ranked
 * it. Reads only.
 */

export const ITEM_KINDS = ["message", "fact", "event", "summary"] as const;
export type ItemKind = (typeof ITEM_KINDS)[number];

const time = z.iso.datetime({ offset: true }).meta({ description: "ISO 8601 with a time zone." });

const itemSearchSchema = z
  .object({
    tenantId: idSchema("tenantId"),
    userId: idSchema("userId"),
    query: z.string().refine((query) => query.trim() !== "", { message: "must not be empty" }),
    kinds: z.array(z.enum(ITEM_KINDS)).min(1).default([...ITEM_KINDS]),
    limit: z.number().int().min(1).max(100).default(20),
    sessionId: idSchema("sessionId").optional(),
    from: time.optional(),
    to: time.optional(),
    eventType: z.string().min(1).optional(),
    minImportance: z.number().min(0).max(1).optional(),
    metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  })
  .strict();

export type ItemSearchRequest = z.input<typeof itemSearchSchema>;
type Request = z.output<typeof itemSearchSchema>;

/** One item a filtered search found, with the parts of its score. */
export interface ItemHit {
  kind: ItemKind;
  id: string;
  sessionId: string | null;
  text: string;
  createdAt: string;
  score: number;
  scores: { lexical: number | null; context: number | null; vector: number | null; fused: number; importance: number | null };
}

/** The share of the query's terms that `text` holds (0..1). */
function coverage(queryTerms: ReadonlySet<string>, text: string): number {
  if (queryTerms.size === 0) return 0;
  const terms = new Set(tokenize(text));
  let held = 0;
  for (const term of queryTerms) if (terms.has(term)) held += 1;
  return held / queryTerms.size;
}

function matches(request: Request, record: Record<string, unknown>, sessionId: string | null, at: string): boolean {
  if (request.sessionId !== undefined && sessionId !== request.sessionId) return false;
  if (request.from !== undefined && Date.parse(at) < Date.parse(request.from)) return false;
  if (request.to !== undefined && Date.parse(at) > Date.parse(request.to)) return false;
  const payload = (record.payload ?? {}) as Record<string, unknown>;
  return Object.entries(request.metadata ?? {}).every(([field, value]) => record[field] === value || payload[field] === value);
}

/** Runs a filtered search of one user's memory; INVALID_INPUT naming the field for a bad request. */
export async function searchItems(store: BaseStore, raw: ItemSearchRequest, deps: { limits: MemoryLimits; embeddings?: EmbeddingsInterface }): Promise<ItemHit[]> {
  const request = parseWith(itemSearchSchema, raw, "request");
  const user = { tenantId: request.tenantId, userId: request.userId };
  const terms = new Set(tokenize(request.query));
  const kinds = new Set(request.kinds);
  const hits: ItemHit[] = [];
  const scored = (kind: ItemKind, record: { id: string; text: string }, sessionId: string | null, at: string, importance: number | null) => {
    const lexical = coverage(terms, record.text);
    if (lexical > 0) hits.push({ kind, id: record.id, sessionId, text: record.text, createdAt: at, score: lexical, scores: { lexical, context: null, vector: null, fused: lexical, importance } });
  };
  if (kinds.has("message")) {
    const prefix = request.sessionId === undefined ? namespaces.sessions(user) : namespaces.transcript({ ...user, sessionId: request.sessionId });
    const recall = deps.limits.recall;
    // Filters apply after ranking: ask for more than wanted so that a page survives them.
    const similar = await searchSimilar(store, prefix, { query: request.query, limit: Math.min(recall.maxCandidates, request.limit * 5), maxCandidates: recall.maxCandidates, minVectorScore: recall.minVectorScore, excludeIds: new Set(), embeddings: deps.embeddings });
    for (const hit of similar) {
      if (!matches(request, { role: hit.role, speaker: hit.speaker }, hit.sessionId, hit.createdAt)) continue;
      const { lexical, context, vector, fused } = hit.ranking;
      hits.push({ kind: "message", id: hit.id, sessionId: hit.sessionId, text: hit.text, createdAt: hit.createdAt, score: hit.score, scores: { lexical: lexical ?? null, context: context ?? null, vector: vector ?? null, fused, importance: null } });
    }
  }
  if (kinds.has("fact")) {
    for (const fact of currentFacts(await loadFacts(store, user))) {
      if (matches(request, fact as unknown as Record<string, unknown>, fact.sessionId, fact.validFrom)) scored("fact", fact, fact.sessionId, fact.validFrom, null);
    }
  }
  if (kinds.has("event")) {
    for (const event of valuesOf<EventRecord>(await listAll(store, namespaces.events(user), { cap: deps.limits.retention.maxEventsPerUser }))) {
      if (request.eventType !== undefined && event.type !== request.eventType) continue;
      if (request.minImportance !== undefined && event.importance < request.minImportance) continue;
      if (matches(request, event as unknown as Record<string, unknown>, event.sessionId, event.createdAt)) scored("event", event, event.sessionId, event.createdAt, event.importance);
    }
  }
  if (kinds.has("summary")) {
    for (const summary of valuesOf<SummaryRecord>(await listAll(store, namespaces.summaries(user), { cap: 2_000 }))) {
      if (matches(request, summary as unknown as Record<string, unknown>, summary.sessionId, summary.createdAt)) scored("summary", summary, summary.sessionId, summary.createdAt, null);
    }
  }
  return hits.sort((a, b) => b.score - a.score || b.createdAt.localeCompare(a.createdAt)).slice(0, request.limit);
}
