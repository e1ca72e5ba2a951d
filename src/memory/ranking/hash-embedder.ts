import { Embeddings, type EmbeddingsParams } from "@langchain/core/embeddings";
import { MemoryGraphError } from "../../errors.js";
import { tokenize } from "./tokenize.js";

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

/** 32-bit FNV-1a over the UTF-16 code units of `text`, starting from `seed`. */
function fnv1a(text: string, seed = FNV_OFFSET): number {
  let hash = seed;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, FNV_PRIME);
  }
  return hash >>> 0;
}

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

  /** The vector of `text`, synchronously. */
  embed(text: string): number[] {
    const vector = new Array<number>(this.dimensions).fill(0);
    const normalized = text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
    if (normalized === "") return vector;
    const chars = Array.from(` ${normalized} `);
    for (let i = 0; i + this.ngram <= chars.length; i++) {
      this.addFeature(vector, `c:${chars.slice(i, i + this.ngram).join("")}`, 1);
    }
    // `tokenize` normalises as above itself; given the raw text, it may answer from its memo.
    for (const word of tokenize(text)) this.addFeature(vector, `w:${word}`, this.wordWeight);
    const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
    return norm > 0 ? vector.map((x) => x / norm) : vector;
  }

  private addFeature(vector: number[], feature: string, weight: number): void {
    const bucket = fnv1a(feature) % this.dimensions;
    const sign = fnv1a(feature, 0x9747b28c) & 1 ? 1 : -1;
    vector[bucket] = (vector[bucket] ?? 0) + sign * weight;
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
