import { Bm25Index } from "../../src/memory/ranking/bm25.js";
import { ENGLISH_STOP_WORDS } from "../../src/memory/ranking/stop-words.js";

/**
 * The baseline both benchmarks print beside our ranking: plain Okapi BM25 (k1 1.2, b 0.75,
 * idf ln(1 + (N − df + 0.5) / (df + 0.5))) over each document's whole text, lower-cased, split on
 * anything that is not a letter or digit, English stop words removed; no stemming, no feedback,
 * no neighbours, no dates.
 */
export function plainTerms(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !ENGLISH_STOP_WORDS.has(w));
}

export class PlainBm25 {
  private readonly index = new Bm25Index({ k1: 1.2, b: 0.75 });

  add(id: string, text: string): void {
    this.index.add(id, plainTerms(text));
  }

  /** The best `limit` ids for `query`, best first (ties in insertion order). */
  search(query: string, limit: number): string[] {
    return [...this.index.score(plainTerms(query))]
      .filter(([, score]) => score > 0)
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([id]) => id);
  }
}
