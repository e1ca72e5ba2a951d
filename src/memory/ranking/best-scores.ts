import type { ScoredId } from "./bm25.js";

/** The best `limit` scores, best first (a numeric threshold first, so only those are sorted as objects). */
export function sorted(scores: ReadonlyMap<string, number>, limit = Infinity): ScoredId[] {
  let threshold = -Infinity;
  if (scores.size > limit) {
    const values = new Float64Array(scores.size);
    let at = 0;
    scores.forEach((score) => void (values[at++] = score));
    values.sort();
    threshold = values[values.length - limit] ?? -Infinity;
  }
  const list: ScoredId[] = [];
  scores.forEach((score, id) => void (score >= threshold && list.push({ id, score })));
  list.sort((a, b) => b.score - a.score);
  return list.length > limit ? list.slice(0, limit) : list;
}

/** The ids of the `n` best scores (n small), best first, without sorting everything. */
export function bestIds(scores: ReadonlyMap<string, number>, n: number): string[] {
  const best: ScoredId[] = [];
  scores.forEach((score, id) => {
    if (best.length === n && score <= (best[n - 1]?.score ?? -Infinity)) return;
    let i = best.length;
    while (i > 0 && (best[i - 1]?.score ?? 0) < score) i--;
    best.splice(i, 0, { id, score });
    if (best.length > n) best.pop();
  });
  return best.map((hit) => hit.id);
}
