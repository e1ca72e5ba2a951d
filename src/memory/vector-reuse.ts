import type { EmbeddingsInterface } from "@langchain/core/embeddings";

/** How many recent calls the round-trip estimate looks at. */
const TIMED_CALLS = 16;

/**
 * Embeddings that compute each document text once: the vector of a text embedded recently (or
 * being embedded) is handed out again instead of asking the provider a second time. A turn's
 * recall starts the vector of the new message; when the message is indexed after the reply (and
 * its event, whose text is the message's), the same vector is stored, so the message costs one
 * embedding call whether or not recall waited for it. Invariants:
 * - a text is in at most one provider call at a time; a call that fails is forgotten, so the
 *   next use asks again;
 * - at most `capacity` texts are remembered (least recently used goes first);
 * - queries (`embedQuery`) are passed through as they are.
 * Also keeps the provider's recent round-trip times, so a caller can tell whether waiting a few
 * milliseconds for a vector is likely to be worth it (`typicalMs`).
 */
export class ReusingEmbeddings implements EmbeddingsInterface {
  private readonly recent = new Map<string, Promise<number[]>>();
  private readonly durations: number[] = [];

  constructor(
    readonly inner: EmbeddingsInterface,
    private readonly capacity = 256,
  ) {}

  embedQuery(text: string): Promise<number[]> {
    return this.inner.embedQuery(text);
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    const missing = [...new Set(texts.filter((text) => !this.recent.has(text)))];
    if (missing.length > 0) {
      const started = performance.now();
      const call = this.inner.embedDocuments(missing);
      void call.then(
        () => this.time(performance.now() - started),
        () => undefined,
      );
      missing.forEach((text, i) => {
        const vector = call.then((vectors) => vectors[i] ?? Promise.reject(new Error("the embeddings provider returned fewer vectors than texts")));
        this.remember(text, vector);
        vector.catch(() => {
          if (this.recent.get(text) === vector) this.recent.delete(text);
        });
      });
    }
    return Promise.all(texts.map((text) => this.use(text)));
  }

  /** The median of the provider's recent round trips, in ms; undefined before the first one. */
  typicalMs(): number | undefined {
    if (this.durations.length === 0) return undefined;
    const sorted = [...this.durations].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  }

  private use(text: string): Promise<number[]> {
    const vector = this.recent.get(text) as Promise<number[]>;
    this.recent.delete(text);
    this.recent.set(text, vector);
    return vector;
  }

  private remember(text: string, vector: Promise<number[]>): void {
    this.recent.set(text, vector);
    while (this.recent.size > this.capacity) {
      const oldest = this.recent.keys().next().value as string;
      this.recent.delete(oldest);
    }
  }

  private time(ms: number): void {
    this.durations.push(ms);
    if (this.durations.length > TIMED_CALLS) this.durations.shift();
  }
}

/** `embeddings` as `ReusingEmbeddings` (itself when it already is one); undefined stays undefined. */
export function reusingEmbeddings(embeddings: EmbeddingsInterface | undefined): ReusingEmbeddings | undefined {
  if (!embeddings) return undefined;
  return embeddings instanceof ReusingEmbeddings ? embeddings : new ReusingEmbeddings(embeddings);
}
