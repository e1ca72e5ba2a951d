import { fuseRankings, normalizeScores } from "../../../src/memory/ranking/index.js";

describe("fuseRankings", () => {
  const lexical = Object.freeze([
    { id: "a", score: 9 },
    { id: "b", score: 5 },
    { id: "c", score: 1 },
  ]);
  const vector = Object.freeze([
    { id: "b", score: 0.9 },
    { id: "d", score: 0.8 },
  ]);

  it("puts the item both sources rank high first and keeps provenance", () => {
    const fused = fuseRankings([
      { name: "lexical", results: lexical },
      { name: "vector", results: vector },
    ]);
    expect(fused.map((f) => f.id)).toEqual(["b", "a", "d", "c"]);
    expect(fused[0]?.parts).toEqual({ lexical: { rank: 2, score: 5 }, vector: { rank: 1, score: 0.9 } });
    expect(fused[0]?.score).toBeCloseTo(1 / 62 + 1 / 61);
    expect(fused[1]?.parts).toEqual({ lexical: { rank: 1, score: 9 } });
  });

  it("ranks each list by its scores, whatever the input order", () => {
    const fused = fuseRankings([{ name: "x", results: [...lexical].reverse() }]);
    expect(fused.map((f) => f.id)).toEqual(["a", "b", "c"]);
  });

  it("honours weights and k", () => {
    const fused = fuseRankings(
      [
        { name: "lexical", results: lexical, weight: 0.1 },
        { name: "vector", results: vector, weight: 1 },
      ],
      { k: 1 },
    );
    expect(fused.map((f) => f.id).slice(0, 2)).toEqual(["b", "d"]);
    expect(fused[1]?.score).toBeCloseTo(1 / 3);
  });

  it("rejects duplicate list names and bad weights", () => {
    expect(() => fuseRankings([{ name: "x", results: [] }, { name: "x", results: [] }])).toThrow(/two lists/);
    expect(() => fuseRankings([{ name: "x", results: [], weight: -1 }])).toThrow(/weight/);
  });

  it("returns nothing for no lists", () => {
    expect(fuseRankings([])).toEqual([]);
  });
});

describe("normalizeScores", () => {
  it("scales by the maximum into 0..1 without mutating", () => {
    const input = Object.freeze([Object.freeze({ id: "a", score: 4 }), Object.freeze({ id: "b", score: 1 })]);
    expect(normalizeScores(input)).toEqual([
      { id: "a", score: 1 },
      { id: "b", score: 0.25 },
    ]);
  });

  it("maps all-zero or negative scores to 0", () => {
    expect(normalizeScores([{ id: "a", score: 0 }, { id: "b", score: -2 }]).map((r) => r.score)).toEqual([0, 0]);
  });
});
