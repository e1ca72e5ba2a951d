import type { BaseStore, GetOperation } from "@langchain/langgraph-checkpoint";
import { namespaces } from "../namespaces.js";
import type { RankedItem } from "../ports/store.js";
import type { MemoryScope } from "../scope.js";
import type { GraphCandidate } from "./entity-walk.js";

/** The RRF constant of the fusion (as the store's own fusion uses). */
const RRF_K = 60;

/**
 * Fuses the store's ranked hits (best first) with the messages an entity-graph walk reached, by
 * reciprocal rank: a hit scores `1 / (k + rank)` in the store's list plus `weight / (k + rank)` in
 * the walk's list, which holds the reached messages the store ranked, in the store's order (the walk
 * says which messages are about the query's entities, the store how well they match its words),
 * then the reached messages the store did not return, by the walk's score. Those are read (one
 * batch) and join with a ranking that says they came from the graph alone. Scores are rescaled so
 * the best is 1. Engine-independent: every engine's hits are fused the same way. Ties keep the
 * store's order.
 */
export async function fuseGraphCandidates(
  store: BaseStore,
  user: Pick<MemoryScope, "tenantId" | "userId">,
  hits: readonly RankedItem[],
  candidates: readonly GraphCandidate[],
  weight: number,
): Promise<RankedItem[]> {
  if (candidates.length === 0 || weight <= 0) return [...hits];
  const fused = new Map<string, { item: RankedItem | null; score: number; order: number }>();
  hits.forEach((item, rank) => fused.set(item.key, { item, score: 1 / (RRF_K + rank + 1), order: rank }));
  const reached = new Set(candidates.map((c) => c.id));
  const walkList = [...hits.filter((item) => reached.has(item.key)).map((item) => item.key), ...candidates.filter((c) => !fused.has(c.id)).map((c) => c.id)];
  const missing = candidates.filter((c) => !fused.has(c.id));
  walkList.forEach((id, rank) => {
    const add = weight / (RRF_K + rank + 1);
    const found = fused.get(id);
    if (found) found.score += add;
    else fused.set(id, { item: null, score: add, order: hits.length + rank });
  });
  if (missing.length > 0) {
    const reads = missing.map((c): GetOperation => ({ namespace: namespaces.transcript({ ...user, sessionId: c.sessionId }), key: c.id }));
    const items = await store.batch<GetOperation[]>(reads);
    missing.forEach((candidate, i) => {
      const item = items[i];
      const entry = fused.get(candidate.id);
      if (!entry) return;
      if (item) entry.item = { ...item, score: 0, ranking: { fused: 0 } };
      else fused.delete(candidate.id);
    });
  }
  const ranked = [...fused.values()].filter((e) => e.item !== null).sort((a, b) => b.score - a.score || a.order - b.order);
  const best = ranked[0]?.score ?? 1;
  return ranked.map(({ item, score }) => {
    const normalised = score / best;
    const base = item as RankedItem;
    return { ...base, score: normalised, ranking: { ...(base.ranking ?? {}), fused: normalised } };
  });
}
