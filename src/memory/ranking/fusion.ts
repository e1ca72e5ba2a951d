import { MemoryGraphError } from "../../errors.js";
import type { ScoredId } from "./bm25.js";

/** One ranked list to fuse: its `name` (used in provenance), its results and an optional weight (default 1). */
export interface RankedList {
  name: string;
  results: readonly ScoredId[];
  weight?: number;
}

/** A fused result: the fused score and, per list that contained the id, its 1-based rank and original score. */
export interface FusedResult {
  id: string;
  score: number;
  parts: Record<string, { rank: number; score: number }>;
}

/**
 * Reciprocal-rank fusion: each list contributes `weight / (k + rank)` to every id it holds
 * (rank 1-based, by the list's scores descending; a repeated id counts once, at its best rank).
 * `k` defaults to 60. Sorted by fused score descending; ties go to the id found in more lists,
 * then to first appearance. List names must be distinct. Pure; ids in no list are absent.
 */
export function fuseRankings(lists: readonly RankedList[], options: { k?: number } = {}): FusedResult[] {
  const k = options.k ?? 60;
  if (!(k >= 0) || !Number.isFinite(k)) {
    throw new MemoryGraphError("INVALID_INPUT", "fuseRankings: k must be a finite number ≥ 0", { kind: "user", field: "k" });
  }
  const fused = new Map<string, FusedResult>();
  const entries: FusedResult[] = [];
  const names = new Set<string>();
  for (const list of lists) {
    if (names.has(list.name)) {
      throw new MemoryGraphError("INVALID_INPUT", `fuseRankings: two lists are named "${list.name}"`, { kind: "user", field: "name" });
    }
    names.add(list.name);
    const weight = list.weight ?? 1;
    if (!(weight >= 0) || !Number.isFinite(weight)) {
      throw new MemoryGraphError("INVALID_INPUT", `fuseRankings: weight of "${list.name}" must be finite and ≥ 0`, {
        kind: "user",
        field: "weight",
      });
    }
    const seen = new Set<string>();
    let rank = 0;
    for (const result of byScore(list.results)) {
      if (seen.has(result.id)) continue;
      seen.add(result.id);
      rank += 1;
      let entry = fused.get(result.id);
      if (!entry) {
        fused.set(result.id, (entry = { id: result.id, score: 0, parts: {} }));
        entries.push(entry);
      }
      entry.parts[list.name] = { rank, score: result.score };
      entry.score += weight / (k + rank);
    }
  }
  // Per entry (in order of first appearance): how many lists hold it.
  const found = entries.map((entry) => Object.keys(entry.parts).length);
  const order = entries.map((_, i) => i);
  order.sort((a, b) => {
    const x = entries[a] as FusedResult;
    const y = entries[b] as FusedResult;
    return y.score - x.score || (found[b] ?? 0) - (found[a] ?? 0) || a - b;
  });
  return order.map((i) => entries[i] as FusedResult);
}

/** The results best first, ties in input order; the input itself when already in that order. */
function byScore(results: readonly ScoredId[]): readonly ScoredId[] {
  let ordered = true;
  for (let i = 1; i < results.length && ordered; i++) ordered = (results[i - 1] as ScoredId).score >= (results[i] as ScoredId).score;
  if (ordered) return results;
  return results
    .map((result, i) => ({ result, i }))
    .sort((a, b) => b.result.score - a.result.score || a.i - b.i)
    .map(({ result }) => result);
}

/**
 * Max-normalisation: each score divided by the largest, so the best result scores 1 and all
 * lie in 0..1 (negative scores become 0). When no score is positive every score becomes 0.
 * Pure: returns new objects in the same order, other fields copied.
 */
export function normalizeScores<T extends { score: number }>(results: readonly T[]): T[] {
  const max = results.reduce((m, r) => (Number.isFinite(r.score) && r.score > m ? r.score : m), 0);
  return results.map((r) => ({ ...r, score: max > 0 && Number.isFinite(r.score) ? Math.max(0, r.score) / max : 0 }));
}
