import { Bm25Index, bm25Rank, tokenize } from "../../../src/memory/ranking/index.js";

const corpus = Object.freeze([
  { id: "refund", text: "How do I get a refund for my order? The refund is late." },
  { id: "shipping", text: "My order shipping is delayed, where is the parcel?" },
  { id: "weather", text: "The weather is sunny and warm today." },
  { id: "price-th", text: "ราคาสินค้านี้เท่าไหร่ครับ" },
  { id: "long", text: `refund ${"filler words about many unrelated topics ".repeat(20)}` },
]);

describe("bm25Rank", () => {
  it("ranks the document about the query first and omits non-matching ones", () => {
    const ranked = bm25Rank("refund for order", corpus);
    expect(ranked[0]?.id).toBe("refund");
    expect(ranked.map((r) => r.id)).not.toContain("weather");
    expect(ranked.every((r) => r.score > 0)).toBe(true);
  });

  it("sorts by score descending", () => {
    const scores = bm25Rank("refund order shipping", corpus).map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it("penalises long documents (b) for the same term count", () => {
    const ranked = bm25Rank("refund", corpus).map((r) => r.id);
    expect(ranked.indexOf("refund")).toBeLessThan(ranked.indexOf("long"));
  });

  it("finds Thai by a Thai word", () => {
    expect(bm25Rank("สินค้า", corpus).map((r) => r.id)).toEqual(["price-th"]);
  });

  it("returns nothing for a query with no terms", () => {
    expect(bm25Rank("the and", corpus)).toEqual([]);
  });
});

describe("Bm25Index", () => {
  it("adds, replaces and removes documents incrementally", () => {
    const index = new Bm25Index();
    index.add("a", tokenize("refund order"));
    index.add("b", tokenize("sunny weather"));
    expect([...index.score(tokenize("refund")).keys()]).toEqual(["a"]);
    index.add("a", tokenize("cloudy weather"));
    expect(index.size).toBe(2);
    expect(index.score(tokenize("refund")).size).toBe(0);
    expect(index.remove("b")).toBe(true);
    expect(index.remove("b")).toBe(false);
    expect([...index.score(tokenize("weather")).keys()]).toEqual(["a"]);
  });

  it("gives rare terms more weight than common ones", () => {
    const index = new Bm25Index();
    index.add("1", ["common", "rare"]);
    index.add("2", ["common"]);
    index.add("3", ["common"]);
    const scores = index.score(["rare", "common"]);
    expect(scores.get("1")).toBeGreaterThan(2 * (scores.get("2") ?? 0));
  });
});
