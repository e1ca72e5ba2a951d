/** LongMemEval's turn-level retrieval metrics (percent when averaged by `summarizeTurns`). */

export interface TurnResult {
  type: string;
  evidence: ReadonlySet<string>;
  /** Session index of every retrieved turn id. */
  sessionOf: (id: string) => number;
  answerSessions: ReadonlySet<number>;
  /** Retrieved turn ids, best first. */
  retrieved: readonly string[];
}

/** LongMemEval's dcg: the first two ranks weigh 1, rank r ≥ 2 (0-based) weighs 1 / log2(r + 1). */
function dcg(relevances: readonly number[]): number {
  return relevances.reduce((sum, rel, i) => sum + (i === 0 ? rel : rel / Math.log2(i + 1)), 0);
}

/** LongMemEval's `ndcg_any@k` with binary relevance of evidence turns. */
export function ndcgAt(result: TurnResult, k: number): number {
  const actual = dcg(result.retrieved.slice(0, k).map((id) => (result.evidence.has(id) ? 1 : 0)));
  const ideal = dcg(new Array<number>(Math.min(k, result.evidence.size)).fill(1));
  return ideal === 0 ? 0 : actual / ideal;
}

export function turnRecallAt(result: TurnResult, k: number): number {
  const top = new Set(result.retrieved.slice(0, k));
  let found = 0;
  for (const id of result.evidence) if (top.has(id)) found += 1;
  return result.evidence.size === 0 ? 1 : found / result.evidence.size;
}

export function perQuestion(result: TurnResult): Record<string, number> {
  const all = (k: number): number => (turnRecallAt(result, k) === 1 ? 1 : 0);
  return {
    "turn_recall@5": turnRecallAt(result, 5),
    "turn_recall@10": turnRecallAt(result, 10),
    "turn_recall_all@5": all(5),
    "turn_recall_all@10": all(10),
    "turn_ndcg@10": ndcgAt(result, 10),
    "sess_recall_any@5": result.retrieved.slice(0, 5).some((id) => result.answerSessions.has(result.sessionOf(id))) ? 1 : 0,
  };
}

/** Means of per-question metrics, in percent, with the question count. */
export function summarizeTurns(rows: readonly Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = { n: rows.length };
  if (rows.length === 0) return out;
  for (const key of Object.keys(rows[0] ?? {})) {
    out[key] = Math.round((1000 * rows.reduce((s, r) => s + (r[key] ?? 0), 0)) / rows.length) / 10;
  }
  return out;
}
