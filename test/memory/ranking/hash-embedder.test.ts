import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import fc from "fast-check";
import { cosine, HashedNgramEmbeddings, tokenize } from "../../../src/memory/ranking/index.js";
import { MAX_RANKED_CHARS, rankedPart } from "../../../src/memory/ranking/tokenize.js";

/** The embedder as first written: each feature built as a string, then hashed (FNV-1a). */
function referenceEmbed(text: string, dimensions: number, ngram: number, wordWeight: number): number[] {
  const fnv = (s: string, seed: number) => {
    let hash = seed;
    for (let i = 0; i < s.length; i++) hash = Math.imul(hash ^ s.charCodeAt(i), 0x01000193);
    return hash >>> 0;
  };
  const vector = new Array<number>(dimensions).fill(0);
  const add = (feature: string, weight: number) => {
    const bucket = fnv(feature, 0x811c9dc5) % dimensions;
    vector[bucket] = (vector[bucket] ?? 0) + (fnv(feature, 0x9747b28c) & 1 ? 1 : -1) * weight;
  };
  const normalized = text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
  if (normalized === "") return vector;
  const chars = Array.from(` ${normalized} `);
  for (let i = 0; i + ngram <= chars.length; i++) add(`c:${chars.slice(i, i + ngram).join("")}`, 1);
  for (const word of tokenize(text)) add(`w:${word}`, wordWeight);
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
  return norm > 0 ? vector.map((x) => x / norm) : vector;
}

describe("HashedNgramEmbeddings", () => {
  const embedder = new HashedNgramEmbeddings();

  it("gives unit vectors of the configured size", async () => {
    const [vector] = await embedder.embedDocuments(["hello world"]);
    expect(vector).toHaveLength(512);
    expect(Math.hypot(...(vector ?? []))).toBeCloseTo(1);
    expect(await new HashedNgramEmbeddings({ dimensions: 64 }).embedQuery("x")).toHaveLength(64);
  });

  it("gives identical texts cosine 1", async () => {
    const a = await embedder.embedQuery("refund for my order");
    const b = await embedder.embedQuery("refund for my order");
    expect(cosine(a, b)).toBeCloseTo(1, 10);
  });

  it.each([
    ["I want a refund for my order", "please refund my order", "the weather is sunny today"],
    ["shipment tracking number", "shippment trackin numbr", "what is your favourite colour"],
    ["ราคาสินค้านี้เท่าไหร่", "สินค้านี้ราคาเท่าไร", "วันนี้อากาศดีมาก"],
  ])("scores %s closer to a related text than to an unrelated one", async (query, related, unrelated) => {
    const [q, r, u] = await embedder.embedDocuments([query, related, unrelated]);
    expect(cosine(q ?? [], r ?? [])).toBeGreaterThan(cosine(q ?? [], u ?? []) + 0.2);
  });

  it("embeds empty text as the zero vector", async () => {
    const zero = await embedder.embedQuery("   ");
    expect(zero.every((x) => x === 0)).toBe(true);
    expect(cosine(zero, await embedder.embedQuery("hi there"))).toBe(0);
  });

  it("plugs into LangGraph's InMemoryStore as its index embeddings", async () => {
    const store = new InMemoryStore({ index: { dims: 512, embeddings: new HashedNgramEmbeddings(), fields: ["text"] } });
    await store.put(["t1", "m"], "a", { text: "refund for my order" });
    await store.put(["t1", "m"], "b", { text: "sunny weather" });
    expect((await store.search(["t1"], { query: "order refund", limit: 1 }))[0]?.key).toBe("a");
  });

  it("gives the vector of hashing each feature string, for any text", () => {
    const piece = fc.constantFrom("a", "Refund", " ", "\n", "é", "1,250", "ราคา", "日本", "😀", "👍🏽", "\u0301", "\ud83d", "Ｒｅｆｕｎｄ");
    const small = new HashedNgramEmbeddings({ dimensions: 64, ngram: 2 });
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join("");
        expect(embedder.embed(text)).toEqual(referenceEmbed(text, 512, 3, 2));
        expect(small.embed(text)).toEqual(referenceEmbed(text, 64, 2, 2));
      }),
      { numRuns: 500 },
    );
  });

  it("embeds a text longer than MAX_RANKED_CHARS as its ranked part", () => {
    const text = "Please cancel my premium subscription at the end of the month. ".repeat(500);
    expect(text.length).toBeGreaterThan(MAX_RANKED_CHARS);
    expect(embedder.embed(text)).toEqual(referenceEmbed(rankedPart(text), 512, 3, 2));
  });

  it("rejects bad dimensions", () => {
    expect(() => new HashedNgramEmbeddings({ dimensions: 0 })).toThrow(/positive/);
  });
});

describe("cosine", () => {
  it("is 1 for parallel, 0 for orthogonal, -1 for opposite vectors", () => {
    expect(cosine([1, 2], [2, 4])).toBeCloseTo(1);
    expect(cosine([1, 0], [0, 3])).toBe(0);
    expect(cosine([1, 1], [-1, -1])).toBeCloseTo(-1);
  });

  it("throws on different lengths", () => {
    expect(() => cosine([1], [1, 2])).toThrow(expect.objectContaining({ code: "VECTOR_DIMENSION_MISMATCH" }));
  });
});
