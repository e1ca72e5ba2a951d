import { MemoryGraphError } from "../../errors.js";
import { termFrequencies, tokenize } from "./tokenize.js";

/**
 * BM25 parameters: `k1` (term-frequency saturation, default 1.2), `b` (length normalisation,
 * default 0.75) and `idf`: "smooth" (default) is ln(1 + (N − df + 0.5) / (df + 0.5)), never
 * below 0; "robertson" is the classic ln((N − df + 0.5) / (df + 0.5)) floored at 1e-6, which all
 * but ignores a term found in half the documents or more (e.g. a speaker's name in a dialogue).
 */
export interface Bm25Options {
  k1?: number;
  b?: number;
  idf?: "smooth" | "robertson";
}

/** Validated BM25 parameters: `k1`, `b` and the IDF of a term held by `df` of `n` documents (always > 0). */
export function bm25Parameters(options: Bm25Options = {}): { k1: number; b: number; idf: (n: number, df: number) => number } {
  const k1 = options.k1 ?? 1.2;
  const b = options.b ?? 0.75;
  if (!(k1 >= 0) || !(b >= 0 && b <= 1)) {
    throw new MemoryGraphError("INVALID_INPUT", "bm25: k1 must be ≥ 0 and b within 0..1", { kind: "user", field: "options" });
  }
  const idf =
    options.idf === "robertson"
      ? (n: number, df: number) => Math.max(1e-6, Math.log((n - df + 0.5) / (df + 0.5)))
      : (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
  return { k1, b, idf };
}

/** A scored document id. */
export interface ScoredId {
  id: string;
  score: number;
}

interface DocEntry {
  length: number;
  terms: Map<string, number>;
}

/**
 * An incremental BM25 index over pre-tokenized documents. Adding an id that is present replaces
 * it. Both IDF forms (see `Bm25Options`) are positive, so every matching term adds a positive
 * amount and a document sharing no term with the query scores nothing.
 */
export class Bm25Index {
  private readonly docs = new Map<string, DocEntry>();
  private readonly postings = new Map<string, Map<string, number>>();
  private totalLength = 0;
  private readonly k1: number;
  private readonly b: number;
  private readonly idf: (n: number, df: number) => number;

  constructor(options: Bm25Options = {}) {
    ({ k1: this.k1, b: this.b, idf: this.idf } = bm25Parameters(options));
  }

  /** The number of documents indexed. */
  get size(): number {
    return this.docs.size;
  }

  /** Indexes `tokens` as document `id`, replacing any earlier document with that id. */
  add(id: string, tokens: readonly string[]): void {
    this.remove(id);
    const terms = termFrequencies(tokens);
    this.docs.set(id, { length: tokens.length, terms });
    this.totalLength += tokens.length;
    for (const [term, tf] of terms) {
      let posting = this.postings.get(term);
      if (!posting) this.postings.set(term, (posting = new Map<string, number>()));
      posting.set(id, tf);
    }
  }

  /** Removes document `id`; returns whether it was present. */
  remove(id: string): boolean {
    const doc = this.docs.get(id);
    if (!doc) return false;
    this.docs.delete(id);
    this.totalLength -= doc.length;
    for (const term of doc.terms.keys()) {
      const posting = this.postings.get(term);
      posting?.delete(id);
      if (posting?.size === 0) this.postings.delete(term);
    }
    return true;
  }

  /** How many documents hold `term`. */
  documentFrequency(term: string): number {
    return this.postings.get(term)?.size ?? 0;
  }

  /** The terms of document `id` (each repeated by its frequency, in order of first appearance); undefined when absent. */
  termsOf(id: string): string[] | undefined {
    const doc = this.docs.get(id);
    return doc ? [...doc.terms].flatMap(([term, tf]) => new Array<string>(tf).fill(term)) : undefined;
  }

  /** BM25 score of every document sharing at least one term with the query (each distinct query term counted once). */
  score(queryTokens: readonly string[]): Map<string, number> {
    const scores = new Map<string, number>();
    const n = this.docs.size;
    if (n === 0) return scores;
    const avgLength = this.totalLength / n || 1;
    for (const term of new Set(queryTokens)) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const idf = this.idf(n, posting.size);
      for (const [id, tf] of posting) {
        const length = this.docs.get(id)?.length ?? 0;
        const norm = this.k1 * (1 - this.b + (this.b * length) / avgLength);
        scores.set(id, (scores.get(id) ?? 0) + (idf * tf * (this.k1 + 1)) / (tf + norm));
      }
    }
    return scores;
  }
}

/**
 * Ranks `docs` against `query` with BM25 over `tokenize` terms. Sorted by score descending (ties
 * keep input order); documents scoring zero are omitted. Pure.
 */
export function bm25Rank(query: string, docs: readonly { id: string; text: string }[], options: Bm25Options = {}): ScoredId[] {
  const index = new Bm25Index(options);
  for (const doc of docs) index.add(doc.id, tokenize(doc.text));
  const scores = index.score(tokenize(query));
  const order = new Map(docs.map((doc, i) => [doc.id, i]));
  return [...scores]
    .filter(([, score]) => score > 0)
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}
