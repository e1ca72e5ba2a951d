import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { z } from "zod";
import { renderMemoryContext } from "./context.js";
import { parseWith } from "./import-schema.js";
import type { MemoryLimits } from "./limits.js";
import { namespaces } from "./namespaces.js";
import type { TranscriptRecord } from "./records.js";
import { recallContext } from "./recall.js";
import { idSchema } from "./scope.js";
import { searchSimilar } from "./similar.js";

/**
 * Memory search: a user's past messages ranked for a query by the ranking recall uses (the same
 * `searchSimilar` over the same namespaces, with the graph's embeddings and limits), each with
 * every score that placed it. Optionally the memory context a turn with this message would give
 * the model. Reads only.
 */

/** Most hits one search returns. */
export const MAX_SEARCH_LIMIT = 100;

const searchRequestSchema = z
  .object({
    tenantId: idSchema("tenantId"),
    userId: idSchema("userId"),
    query: z.string().refine((query) => query.trim() !== "", { message: "must not be empty" }),
    limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).default(10),
    sessionId: idSchema("sessionId").optional(),
    withContext: z.boolean().default(false),
    /** The moment the query is asked, against which "10 days ago" is placed (default: now). */
    asOf: z.union([z.date().refine((date) => !Number.isNaN(date.getTime()), { message: "must be a valid date" }), z.iso.datetime({ offset: true })]).optional(),
  })
  .strict();

/** A search of one user's memory; `sessionId` keeps it to one session. */
export type MemorySearchRequest = z.input<typeof searchRequestSchema>;

/** One past message a search found, with every score: normalised lexical and neighbour-context scores, cosine similarity, fused. */
export interface MemoryHit {
  id: string;
  sessionId: string;
  role: TranscriptRecord["role"];
  speaker: string | null;
  text: string;
  createdAt: string;
  /** The fused score (best hit = 1): what the hits are ordered by. */
  score: number;
  scores: { lexical: number | null; context: number | null; vector: number | null; fused: number };
}

/** What a search found: the hits, best first, and the memory block when asked for. */
export interface MemorySearchResult {
  hits: MemoryHit[];
  /**
   * With `withContext`: the memory block a turn with this query as its message would give the model
   * (in a new session when no `sessionId` is given), its estimated tokens and the ids of the stored
   * messages it shows.
   */
  memoryContext?: { text: string; tokens: number; shownIds: string[] };
}

/**
 * Searches a user's memory. Throws INVALID_INPUT naming the field for a bad request (an empty
 * query, a limit outside 1..100, a bad id).
 */
export async function searchMemory(
  store: BaseStore,
  raw: MemorySearchRequest,
  deps: { limits: MemoryLimits; embeddings?: EmbeddingsInterface },
): Promise<MemorySearchResult> {
  const request = parseWith(searchRequestSchema, raw, "request");
  const user = { tenantId: request.tenantId, userId: request.userId };
  const session = request.sessionId;
  const prefix = session === undefined ? namespaces.sessions(user) : namespaces.transcript({ ...user, sessionId: session });
  const recall = deps.limits.recall;
  const asOf = request.asOf === undefined ? undefined : new Date(request.asOf);
  const similar = await searchSimilar(store, prefix, {
    query: request.query,
    limit: request.limit,
    maxCandidates: recall.maxCandidates,
    minVectorScore: recall.minVectorScore,
    excludeIds: new Set(),
    embeddings: deps.embeddings,
    graph: { user, ...(session === undefined ? {} : { sessionId: session }), options: recall.graph },
    categoryWeight: recall.categoryWeight,
    timeWindowWeight: recall.timeWindowWeight,
    ...(asOf ? { asOf } : {}),
  });
  const hits = similar.map(
    (hit): MemoryHit => ({
      id: hit.id,
      sessionId: hit.sessionId,
      role: hit.role,
      speaker: hit.speaker ?? null,
      text: hit.text,
      createdAt: hit.createdAt,
      score: hit.score,
      scores: { lexical: hit.ranking.lexical ?? null, context: hit.ranking.context ?? null, vector: hit.ranking.vector ?? null, fused: hit.ranking.fused },
    }),
  );
  if (!request.withContext) return { hits };
  const recalled = await recallContext(store, { scope: { ...user, sessionId: session }, query: request.query, excludeIds: new Set(), limits: recall, embeddings: deps.embeddings });
  const rendered = renderMemoryContext(recalled, deps.limits.context);
  return { hits, memoryContext: { text: rendered.text, tokens: rendered.tokens, shownIds: rendered.shownIds ?? [] } };
}
