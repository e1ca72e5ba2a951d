import { Embeddings, type EmbeddingsParams } from "@langchain/core/embeddings";
import { MemoryGraphError } from "../../errors.js";
import { rankedPart, tokenize } from "./tokenize.js";

/** Options of `HashedNgramEmbeddings`. */
export interface HashedNgramOptions extends EmbeddingsParams {
  /** Vector length (number of hash buckets); default 512. */
  dimensions?: number;
  /** Character n-gram length; default 3. */
  ngram?: number;
  /** Weight of each word (from `tokenize`) relative to one character n-gram; default 2. */
  wordWeight?: number;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

const SIGN_SEED = 0x9747b28c;

/** 32-bit FNV-1a over the UTF-16 code units of `text`, starting from `seed`. */
function fnv1a(text: string, seed = FNV_OFFSET): number {
  let hash = seed;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

/** FNV-1a continued over `text[from, to)` from the (unsigned or signed) state `hash`. */
function fnv1aRange(hash: number, text: string, from: number, to: number): number {
  let h = hash;
  for (let i = from; i < to; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

/** Hash states after the prefix of character n-gram features, for the bucket and the sign. */
const NGRAM_BUCKET_STATE = fnv1a("c:");
const NGRAM_SIGN_STATE = fnv1a("c:", SIGN_SEED);

/**
 * A local embedder that needs no model download: the feature-hashing trick over character
 * n-grams (default 3-grams of the NFKC, lower-cased, whitespace-collapsed text, padded with a
 * space) and the text's words from `tokenize`. Each feature is hashed (FNV-1a) into one of
 * `dimensions` buckets with a hashed ±1 sign; the vector is L2-normalised, so cosine is a dot
 * product. Deterministic and language-agnostic (Thai works through its character n-grams), but
 * lexical: it sees spelling overlap, not meaning. An empty text gives the zero vector.
 */
export class HashedNgramEmbeddings extends Embeddings {
  readonly dimensions: number;
  readonly ngram: number;
  readonly wordWeight: number;
  /** The vectors of the last few texts embedded, by ranked part. */
  private readonly recent = new Map<string, number[]>();

  constructor(options: HashedNgramOptions = {}) {
    super(options);
    this.dimensions = options.dimensions ?? 512;
    this.ngram = options.ngram ?? 3;
    this.wordWeight = options.wordWeight ?? 2;
    if (!Number.isInteger(this.dimensions) || this.dimensions < 1 || !Number.isInteger(this.ngram) || this.ngram < 1) {
      throw new MemoryGraphError("INVALID_INPUT", "HashedNgramEmbeddings: dimensions and ngram must be positive integers", {
        kind: "user",
        field: "dimensions",
      });
    }
  }

  embedDocuments(documents: string[]): Promise<number[][]> {
    return Promise.resolve(documents.map((doc) => this.embed(doc)));
  }

  embedQuery(document: string): Promise<number[]> {
    return Promise.resolve(this.embed(document));
  }

  /** The vector of `text`, synchronously (of its `rankedPart`, as for its terms). */
  embed(text: string): number[] {
    const ranked = rankedPart(text);
    const known = this.recent.get(ranked);
    if (known) return known.slice();
    const vector = this.compute(ranked);
    // A turn embeds its prompt beside a date twice (the message and its event): remember a few.
    if (this.recent.size >= 4) this.recent.delete(this.recent.keys().next().value as string);
    this.recent.set(ranked, vector.slice());
    return vector;
  }

  private compute(text: string): number[] {
    const vector = new Array<number>(this.dimensions).fill(0);
    const normalized = text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
    if (normalized === "") return vector;
    // Each n-gram of code points is the feature `c:<n-gram>`, hashed in place (no string built).
    const padded = ` ${normalized} `;
    const starts: number[] = [];
    for (let i = 0; i < padded.length; i += padded.codePointAt(i)! > 0xffff ? 2 : 1) starts.push(i);
    starts.push(padded.length);
    for (let i = 0; i + this.ngram < starts.length; i++) {
      const from = starts[i] ?? 0;
      const to = starts[i + this.ngram] ?? padded.length;
      this.addHashed(vector, fnv1aRange(NGRAM_BUCKET_STATE, padded, from, to), fnv1aRange(NGRAM_SIGN_STATE, padded, from, to), 1);
    }
    // `tokenize` normalises as above itself; given the raw text, it may answer from its memo.
    for (const word of tokenize(text)) this.addFeature(vector, `w:${word}`, this.wordWeight);
    const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
    return norm > 0 ? vector.map((x) => x / norm) : vector;
  }

  private addFeature(vector: number[], feature: string, weight: number): void {
    this.addHashed(vector, fnv1a(feature), fnv1a(feature, SIGN_SEED), weight);
  }

  private addHashed(vector: number[], bucketHash: number, signHash: number, weight: number): void {
    const bucket = bucketHash % this.dimensions;
    vector[bucket] = (vector[bucket] ?? 0) + (signHash & 1 ? weight : -weight);
  }
}

/**
 * Cosine similarity of two equal-length vectors, in −1..1; 0 when either is the zero vector.
 * Throws `VECTOR_DIMENSION_MISMATCH` when the lengths differ.
 */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) {
    throw new MemoryGraphError("VECTOR_DIMENSION_MISMATCH", `cosine: vectors of length ${a.length} and ${b.length}`, {
      kind: "system",
    });
  }
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na === 0 || nb === 0) return 0;
  return Math.max(-1, Math.min(1, dot / Math.sqrt(na * nb)));
}
