import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { queryVectorWithin } from "../../src/memory/query-vector.js";
import { ReusingEmbeddings, reusingEmbeddings } from "../../src/memory/vector-reuse.js";

/** An embedder that records every call and answers after `delayMs` (or fails while `failing`). */
class CountingEmbeddings implements EmbeddingsInterface {
  readonly documentCalls: string[][] = [];
  failing = false;
  constructor(private readonly delayMs = 0) {}
  async embedDocuments(texts: string[]): Promise<number[][]> {
    this.documentCalls.push(texts);
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.failing) throw new Error("provider down");
    return texts.map((text) => [text.length, 1]);
  }
  async embedQuery(text: string): Promise<number[]> {
    return [text.length, 0];
  }
}

const never = new Promise<number[] | undefined>(() => undefined);

describe("ReusingEmbeddings", () => {
  it("embeds a text once: a second use, during or after the call, gets the same vector", async () => {
    const inner = new CountingEmbeddings(20);
    const reusing = new ReusingEmbeddings(inner);
    const first = reusing.embedDocuments(["hello"]);
    const both = reusing.embedDocuments(["hello", "world"]);
    expect(await first).toEqual([[5, 1]]);
    expect(await both).toEqual([[5, 1], [5, 1]]);
    expect(await reusing.embedDocuments(["world", "hello"])).toEqual([[5, 1], [5, 1]]);
    expect(inner.documentCalls).toEqual([["hello"], ["world"]]);
  });

  it("forgets a failed call, so the next use asks the provider again", async () => {
    const inner = new CountingEmbeddings();
    const reusing = new ReusingEmbeddings(inner);
    inner.failing = true;
    await expect(reusing.embedDocuments(["hello"])).rejects.toThrow("provider down");
    inner.failing = false;
    expect(await reusing.embedDocuments(["hello"])).toEqual([[5, 1]]);
    expect(inner.documentCalls).toHaveLength(2);
  });

  it("remembers at most `capacity` texts, the least recently used going first", async () => {
    const inner = new CountingEmbeddings();
    const reusing = new ReusingEmbeddings(inner, 2);
    await reusing.embedDocuments(["a"]);
    await reusing.embedDocuments(["b"]);
    await reusing.embedDocuments(["a"]); // a is now the most recently used
    await reusing.embedDocuments(["c"]); // b goes
    await reusing.embedDocuments(["a", "b"]);
    expect(inner.documentCalls).toEqual([["a"], ["b"], ["c"], ["b"]]);
  });

  it("passes queries through, wraps once, and knows the provider's typical round trip", async () => {
    const inner = new CountingEmbeddings(30);
    const reusing = reusingEmbeddings(inner) as ReusingEmbeddings;
    expect(reusingEmbeddings(reusing)).toBe(reusing);
    expect(reusingEmbeddings(undefined)).toBeUndefined();
    expect(reusing.typicalMs()).toBeUndefined();
    expect(await reusing.embedQuery("hey")).toEqual([3, 0]);
    await reusing.embedDocuments(["x"]);
    expect(reusing.typicalMs()).toBeGreaterThanOrEqual(25);
  });
});

describe("queryVectorWithin", () => {
  it("uses a vector that comes back within the wait", async () => {
    expect(await queryVectorWithin(Promise.resolve([1, 2]), 50)).toEqual({ vector: [1, 2], search: "used" });
  });

  it("goes on without a vector that is late, and says so", async () => {
    const started = performance.now();
    expect(await queryVectorWithin(never, 20)).toEqual({ search: "late" });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("does not wait when the provider's typical round trip is over the budget", async () => {
    const slow = new Promise<number[]>((resolve) => setTimeout(() => resolve([1]), 200));
    expect(await queryVectorWithin(slow, 10_000, 150_000)).toEqual({ search: "late" });
  });

  it("tells a failed call (undefined, or a rejection) and no embeddings apart from a late one", async () => {
    expect(await queryVectorWithin(Promise.resolve(undefined), 50)).toEqual({ search: "failed" });
    expect(await queryVectorWithin(Promise.reject(new Error("x")), 50)).toEqual({ search: "failed" });
    expect(await queryVectorWithin(undefined, 50)).toEqual({ search: "off" });
  });
});
