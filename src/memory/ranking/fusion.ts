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
    const ordered = list.results
      .map((result, i) => ({ result, i }))
      .sort((a, b) => b.result.score - a.result.score || a.i - b.i);
    let rank = 0;
    for (const { result } of ordered) {
      let entry = fused.get(result.id);
      if (entry?.parts[list.name]) continue;
      rank += 1;
      if (!entry) fused.set(result.id, (entry = { id: result.id, score: 0, parts: {} }));
      entry.parts[list.name] = { rank, score: result.score };
      entry.score += weight / (k + rank);
    }
  }
  return [...fused.values()]
    .map((entry, i) => ({ entry, i }))
    .sort(
      (a, b) =>
        b.entry.score - a.entry.score ||
        Object.keys(b.entry.parts).length - Object.keys(a.entry.parts).length ||
        a.i - b.i,
    )
    .map(({ entry }) => entry);
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
