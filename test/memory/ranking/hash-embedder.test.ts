import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { cosine, HashedNgramEmbeddings } from "../../../src/memory/ranking/index.js";

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
