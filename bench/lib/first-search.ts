import { performance } from "node:perf_hooks";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { DEFAULT_LIMITS } from "../../src/memory/limits.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { searchSimilar } from "../../src/memory/similar.js";

/** A search of `userId`'s sessions (tenant "bench") as recall makes it (the default limits): its time and its ranked ids with scores (`id@score`). */
export async function firstSearch(store: BaseStore, userId: string, query: string): Promise<{ ms: number; ranked: string[] }> {
  const limits = DEFAULT_LIMITS.recall;
  const started = performance.now();
  const hits = await searchSimilar(store, namespaces.sessions({ tenantId: "bench", userId }), {
    query,
    limit: limits.similarTopK,
    maxCandidates: limits.maxCandidates,
    minVectorScore: limits.minVectorScore,
    excludeIds: new Set(),
  });
  return { ms: performance.now() - started, ranked: hits.map((hit) => `${hit.id}@${hit.score}`) };
}
