import { log } from "../logger.js";

/**
 * How a turn's recall used vectors: `used` (the query vector came in time), `late` (it did not:
 * recall ranked lexically; the vector is still stored with the message), `failed` (the embeddings
 * call failed: logged as `embeddings_fallback`), `off` (no embeddings configured).
 */
export type VectorSearch = "used" | "late" | "failed" | "off";

/** A query vector, or why recall goes on without one. */
export interface QueryVector {
  vector?: number[];
  search: VectorSearch;
}

/**
 * Waits for the query vector at most `waitMs` (counted from this call), so that a slow embeddings
 * provider never holds up the reply: a vector that is not back in time is left to finish on its
 * own, and recall goes on lexically (logged as `recall_vector_late`). When the provider's typical
 * round trip (`typicalMs`) is already over the budget, waiting is pointless and recall does not
 * wait at all. `pending` resolving to undefined means the call failed (and was logged).
 */
export async function queryVectorWithin(
  pending: Promise<number[] | undefined> | undefined,
  waitMs: number,
  typicalMs?: number,
): Promise<QueryVector> {
  if (!pending) return { search: "off" };
  const wait = typicalMs !== undefined && typicalMs > waitMs ? 0 : waitMs;
  let timer: NodeJS.Timeout | undefined;
  const late = Symbol("late");
  const timeout = new Promise<typeof late>((resolve) => {
    timer = setTimeout(() => resolve(late), wait);
  });
  const started = performance.now();
  const outcome = await Promise.race([pending.catch(() => undefined), timeout]);
  clearTimeout(timer);
  if (outcome === late) {
    log.info("recall_vector_late", { wait_ms: wait, waited_ms: Math.round(performance.now() - started), typical_ms: typicalMs === undefined ? null : Math.round(typicalMs) });
    return { search: "late" };
  }
  return outcome ? { vector: outcome, search: "used" } : { search: "failed" };
}
