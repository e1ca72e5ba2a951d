import { rankHybrid, RecallIndex, recordTraits, tokenize } from "../../../src/memory/ranking/index.js";
import { splitTimeTerms } from "../../../src/memory/ranking/hybrid.js";
import { hybridOptionsOf, indexSource } from "../../../src/memory/ranking/index-source.js";

/** The answer speaks of its own day; another message shares the question's "last month". */
function memory() {
  const index = new RecallIndex();
  const docs: [id: string, group: string, text: string][] = [
    ["answer", "s1", "I went to a photography workshop today and paid $120 for it"],
    ["other", "s2", "I bought these boots last month and the workshop shoes the month before"],
    ["filler", "s3", "Could you suggest a recipe for dinner tonight"],
  ];
  docs.forEach(([id, group, text], i) => index.add(id, tokenize(text), group, i, recordTraits({ text })));
  return indexSource(index);
}

describe("splitTimeTerms", () => {
  it("takes the time terms out of the topic, unless off or nothing else is left", () => {
    expect(splitTimeTerms(["workshop", "last", "month", "workshop"], ["last", "month"], 0)).toEqual({ terms: ["workshop"], timed: ["last", "month"] });
    expect(splitTimeTerms(["workshop", "last", "month"], ["last", "month"], 1)).toEqual({ terms: ["workshop", "last", "month"], timed: [] });
    expect(splitTimeTerms(["last", "month"], ["last", "month"], 0)).toEqual({ terms: ["last", "month"], timed: [] });
    expect(splitTimeTerms(["workshop"], [], 0)).toEqual({ terms: ["workshop"], timed: [] });
  });
});

describe("rankHybrid with a question's relative time (timeTerms)", () => {
  const source = memory();
  const terms = tokenize("photography workshop last month");
  const timeTerms = tokenize("last month");
  const ids = (options: Parameters<typeof rankHybrid>[3]) => rankHybrid(terms, source, undefined, { feedbackDocs: 0, neighbourWeight: 0, ...options }).map((hit) => hit.id);

  it("ranks the answer first by default, and the message sharing 'last month' first when scored as topic", () => {
    expect(ids({ timeTerms })[0]).toBe("answer");
    expect(ids({ timeTerms, timeTermWeight: 1 })[0]).toBe("other");
    expect(ids({})[0]).toBe("other");
  });

  it("adds the time terms' score at their weight, and refuses a weight above 1", () => {
    const scoreOf = (timeTermWeight: number) => rankHybrid(terms, source, undefined, { feedbackDocs: 0, neighbourWeight: 0, timeTerms, timeTermWeight }).find((hit) => hit.id === "other")?.lexical ?? 0;
    expect(scoreOf(0.5)).toBeGreaterThan(scoreOf(0));
    expect(scoreOf(0.5) - scoreOf(0)).toBeCloseTo((scoreOf(1) - scoreOf(0)) / 2, 9);
    expect(() => scoreOf(1.5)).toThrow(/timeTermWeight/);
  });

  it("is asked for by the search operation (hybridOptionsOf)", () => {
    expect(hybridOptionsOf(undefined, { timeTerms })).toEqual({ timeTerms });
    expect(hybridOptionsOf(undefined, { timeTerms: [] })).toEqual({});
    expect(hybridOptionsOf(undefined, { asksForAggregate: true })).toEqual({ aggregateQuery: true });
  });
});

describe("rankHybrid for a sum or an order (aggregateQuery)", () => {
  const index = new RecallIndex();
  ["we went camping at the lake", "camping sounds fun", "camping again soon"].forEach((text, i) => index.add(`a${i}`, tokenize(text), "a", i, recordTraits({ text })));
  const source = indexSource(index);
  const contextOf = (options: Parameters<typeof rankHybrid>[3]) =>
    rankHybrid(tokenize("lake"), source, undefined, { feedbackDocs: 0, neighbourWeight: 0.5, listNeighbourWeight: 0.25, ...options }).find((hit) => hit.id === "a1")?.context ?? 0;

  it("is ranked with a list question's weights, unless aggregateAsList is false", () => {
    const plain = contextOf({});
    expect(plain).toBeGreaterThan(0);
    expect(contextOf({ aggregateQuery: true })).toBeCloseTo(plain / 2, 9);
    expect(contextOf({ aggregateQuery: true })).toBeCloseTo(contextOf({ listQuery: true }), 12);
    expect(contextOf({ aggregateQuery: true, aggregateAsList: false })).toBeCloseTo(plain, 12);
  });
});
