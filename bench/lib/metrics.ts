/** Retrieval metrics in the LoCoMo paper's convention (recall in percent). */

export const KS = [5, 10, 25, 50] as const;

export interface QuestionResult {
  category: number;
  evidence: readonly string[];
  /** The turn ids each retrieved item came from, best first. */
  retrieved: readonly (readonly string[])[];
}

/** Fraction of `evidence` covered by the first `k` items; 1 when there is no evidence. */
export function recallAt(result: QuestionResult, k: number): number {
  if (result.evidence.length === 0) return 1;
  const covered = new Set(result.retrieved.slice(0, k).flat());
  return result.evidence.filter((id) => covered.has(id)).length / result.evidence.length;
}

/** 1 / rank of the first item holding any evidence id (0 when none does); 1 when there is no evidence. */
export function reciprocalRank(result: QuestionResult): number {
  if (result.evidence.length === 0) return 1;
  const wanted = new Set(result.evidence);
  const rank = result.retrieved.findIndex((ids) => ids.some((id) => wanted.has(id)));
  return rank < 0 ? 0 : 1 / (rank + 1);
}

const round = (x: number, digits = 1): number => Math.round(x * 10 ** digits) / 10 ** digits;

export type Summary = Record<string, number>;

export function summarize(results: readonly QuestionResult[]): Summary {
  const n = results.length;
  const mean = (f: (r: QuestionResult) => number): number => (n === 0 ? 0 : results.reduce((s, r) => s + f(r), 0) / n);
  const summary: Summary = { n };
  for (const k of KS) summary[`recall@${k}`] = round(100 * mean((r) => recallAt(r, k)));
  summary.mrr = round(mean(reciprocalRank), 3);
  return summary;
}

/** The p-th percentile (0..100) by nearest rank; 0 for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? 0;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((s, v) => s + v, 0) / values.length;
}

/** How many, and the p50, p95 and max of `ms`, to two decimals. */
export function timeStats(ms: readonly number[]): { n: number; p50: number; p95: number; max: number } {
  return { n: ms.length, p50: round(percentile(ms, 50), 2), p95: round(percentile(ms, 95), 2), max: round(Math.max(...ms), 2) };
}

export { round };
