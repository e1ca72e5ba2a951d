import fc from "fast-check";
import { Bm25Index, rankHybrid, RecallIndex } from "../../../src/memory/ranking/index.js";
import { kthLargest } from "../../../src/memory/ranking/postings.js";
import { indexSource } from "../../../src/memory/ranking/index-source.js";
import { termsHeld } from "../../../src/memory/ranking/document-terms.js";

/** The best `limit` of a full BM25 ranking, as the reference for RecallIndex's pruned scoring. */
function reference(index: Bm25Index, terms: string[], limit: number): Map<string, number> {
  const all = [...index.score(terms)].sort((a, b) => b[1] - a[1]);
  return new Map(all.slice(0, limit));
}

function expectSameTop(got: Map<string, number>, want: Map<string, number>): void {
  expect(got.size).toBe(want.size);
  const cut = Math.min(...want.values());
  for (const [id, score] of want) {
    // Above the cut the ids must agree; at the cut a tie may pick either id.
    if (score > cut + 1e-9) expect(got.get(id)).toBeCloseTo(score, 9);
  }
  for (const score of got.values()) expect(score).toBeGreaterThanOrEqual(cut - 1e-9);
}

describe("RecallIndex scoring", () => {
  it("returns exactly the best `limit` BM25 scores, also when common terms are pruned", () => {
    const bm25 = new Bm25Index();
    const index = new RecallIndex();
    // 2,000 documents: "common" in every other one (long posting list), "rare" in a few.
    for (let i = 0; i < 2000; i++) {
      const terms = [i % 2 === 0 ? "common" : "other", i % 97 === 0 ? "rare" : "filler", `w${i % 13}`, ...(i % 5 === 0 ? ["common"] : [])];
      bm25.add(String(i), terms);
      index.add(String(i), terms, `g${i % 10}`, i);
    }
    for (const [terms, limit] of [
      [["rare", "common"], 10],
      [["rare", "common", "w3"], 5],
      [["common"], 50],
      [["w1", "common", "missing"], 300],
    ] as const) {
      expectSameTop(index.score([...terms], limit), reference(bm25, [...terms], limit));
    }
  });

  it("agrees with Bm25Index through adds, replacements and removals (property)", () => {
    const op = fc.record({
      id: fc.integer({ min: 0, max: 60 }),
      remove: fc.boolean(),
      pack: fc.integer({ min: 0, max: 9 }),
      terms: fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f", "g"), { minLength: 1, maxLength: 8 }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), fc.array(fc.constantFrom("a", "b", "c", "z"), { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 20 }), (ops, query, limit) => {
        const bm25 = new Bm25Index();
        const index = new RecallIndex();
        for (const { id, remove, pack, terms } of ops) {
          // Now and then pack the postings, so queries read packed runs and unpacked documents together.
          if (pack === 0) index.pack();
          if (remove) {
            bm25.remove(String(id));
            index.remove(String(id));
          } else {
            bm25.add(String(id), terms);
            index.add(String(id), terms, "g", id);
          }
        }
        expect(index.size).toBe(bm25.size);
        for (const term of ["a", "z"]) expect(index.documentFrequency(term)).toBe(bm25.documentFrequency(term));
        expectSameTop(index.score(query, limit), reference(bm25, query, limit));
      }),
      { numRuns: 200 },
    );
  });

  it("gives each document's terms, repeated by frequency, and forgets removed ones", () => {
    const index = new RecallIndex();
    index.add("x", ["tea", "cup", "tea"], "g", 1);
    index.add("y", ["cup"], "g", 2);
    expect(index.termsOf(["x", "nope"])).toEqual(new Map([["x", ["tea", "tea", "cup"]]]));
    // Which of some terms a document holds, each once, unknown terms and ids left out.
    expect(index.heldOf(["x", "y", "nope"], ["cup", "tea", "tea", "pot"])).toEqual(
      new Map([
        ["x", ["tea", "cup"]],
        ["y", ["cup"]],
      ]),
    );
    expect(index.heldOf(["x"], ["pot"])).toEqual(new Map([["x", []]]));
    // What a source without heldOf says is read from its terms alike.
    const { heldOf: _, ...plain } = indexSource(index);
    expect(termsHeld(plain, ["x", "y"], ["cup", "tea"])).toEqual(index.heldOf(["x", "y"], ["cup", "tea"]));
    expect(index.documentShare("cup")).toBe(1);
    index.remove("y");
    expect(index.documentShare("cup")).toBe(1);
    expect(index.documentShare("tea")).toBe(1);
    expect(index.score(["cup"], 5).has("y")).toBe(false);
  });

  it("keeps neighbours and scores right after compacting many removed documents", () => {
    const index = new RecallIndex();
    for (let i = 0; i < 400; i++) index.add(String(i), ["t", `u${i}`], "g", i);
    for (let i = 0; i < 400; i += 2) index.remove(String(i));
    expect(index.size).toBe(200);
    expect(index.neighboursOf(["5"]).get("5")).toEqual(["3", "7"]);
    expect([...index.score(["u7"], 3).keys()]).toEqual(["7"]);
    expect(index.score(["t"], 1000).size).toBe(200);
  });
});

describe("RecallIndex traits", () => {
  it("keeps labels and answers through replacement, removal and compaction", () => {
    const index = new RecallIndex();
    index.add("q", ["race"], "g", 0, { label: "user", asks: true });
    index.add("a", ["porto"], "g", 1, { label: "assistant" });
    index.add("z", ["later"], "g", 2);
    expect(index.labelsOf(["q", "a", "z", "missing"])).toEqual(new Map([["q", "user"], ["a", "assistant"]]));
    expect(index.answersOf(["q", "a", "z"])).toEqual(new Map([["q", "a"]]));
    // Replaced without traits: no longer a question, no label.
    index.add("q", ["race"], "g", 0);
    expect(index.answersOf(["q"])).toEqual(new Map());
    expect(index.labelsOf(["q"])).toEqual(new Map());
    index.add("q", ["race"], "g", 0, { asks: true });
    index.remove("a");
    expect(index.answersOf(["q"])).toEqual(new Map([["q", "z"]]));
    for (let i = 0; i < 200; i++) index.add(`x${i}`, ["filler"], "h", 10 + i);
    for (let i = 0; i < 200; i++) index.remove(`x${i}`);
    expect(index.answersOf(["q"])).toEqual(new Map([["q", "z"]]));
    expect(index.score(["race"], 5).has("q")).toBe(true);
  });
});

describe("kthLargest", () => {
  it("finds the k-th largest value (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { minLength: 1, maxLength: 300 }), fc.nat(), (values, pick) => {
        const k = (pick % values.length) + 1;
        const sorted = [...values].sort((a, b) => b - a);
        expect(kthLargest(Float64Array.from(values), values.length, k)).toBe(sorted[k - 1]);
      }),
    );
  });
});

describe("rankHybrid limit", () => {
  it("returns only the best `limit` results, in the same order as without a limit", () => {
    const index = new RecallIndex();
    ["tea and cake", "tea", "cake", "tea time", "coffee"].forEach((text, i) => index.add(String(i), text.split(" "), "g", i));
    const source = {
      score: (terms: readonly string[], limit: number) => index.score(terms, limit),
      termsOf: (ids: readonly string[]) => index.termsOf(ids),
      neighboursOf: (ids: readonly string[]) => index.neighboursOf(ids),
    };
    const all = rankHybrid(["tea", "cake"], source, undefined);
    const top = rankHybrid(["tea", "cake"], source, undefined, { limit: 2 });
    expect(top.map((hit) => hit.id)).toEqual(all.slice(0, 2).map((hit) => hit.id));
    expect(top[0]?.lexical).toBeGreaterThan(0);
    expect(() => rankHybrid(["tea"], source, undefined, { limit: -1 })).toThrow(/limit/);
  });
});
