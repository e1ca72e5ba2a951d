import { rankHybrid, RecallIndex, recordTraits, tokenize, type LexicalSource } from "../../../src/memory/ranking/index.js";
import { spreadAcrossGroups } from "../../../src/memory/ranking/diversity.js";
import { hybridOptionsOf, indexSource } from "../../../src/memory/ranking/index-source.js";

/** Two conversations: a's match and its short neighbours, b's weaker match. */
function twoSessions(): LexicalSource {
  const index = new RecallIndex();
  const docs: [id: string, group: string, text: string][] = [
    ["a0", "a", "we went camping at the lake camping trip"],
    ["a1", "a", "camping sounds fun"],
    ["a2", "a", "camping again soon"],
    ["b0", "b", "I took a pottery class and then camping"],
  ];
  docs.forEach(([id, group, text], i) => index.add(id, tokenize(text), group, i, recordTraits({ text })));
  return indexSource(index);
}

describe("rankHybrid for a list question (listQuery)", () => {
  const source = twoSessions();
  const contextOf = (options: Parameters<typeof rankHybrid>[3]) =>
    rankHybrid(tokenize("camping"), source, undefined, { feedbackDocs: 0, ...options }).find((hit) => hit.id === "a1")?.context ?? 0;

  it("lends neighbours listNeighbourWeight instead of neighbourWeight", () => {
    const plain = contextOf({ neighbourWeight: 0.5, listNeighbourWeight: 0.25 });
    expect(plain).toBeGreaterThan(0);
    expect(contextOf({ neighbourWeight: 0.5, listNeighbourWeight: 0.25, listQuery: true })).toBeCloseTo(plain / 2, 9);
    expect(contextOf({ neighbourWeight: 0.5, listNeighbourWeight: 0.5, listQuery: true })).toBeCloseTo(plain, 9);
  });

  it("refuses a list speaker weight above 1", () => {
    expect(() => contextOf({ listSpeakerWeight: 2 })).toThrow(/speakerWeight/);
  });

  it("is asked for by the search operation (hybridOptionsOf)", () => {
    expect(hybridOptionsOf({ neighbourWeight: 0.4 }, { asksForList: true })).toEqual({ neighbourWeight: 0.4, listQuery: true });
    expect(hybridOptionsOf(undefined, { asksForList: false })).toEqual({});
  });
});

describe("spreadAcrossGroups (groupDecay)", () => {
  const source = twoSessions();

  it("weighs each further document of a conversation down once per better one of it", () => {
    const scores = new Map([["a0", 4], ["a1", 3], ["a2", 2], ["b0", 1]]);
    const spread = spreadAcrossGroups(scores, source, 0.5);
    expect(Object.fromEntries(spread)).toEqual({ a0: 4, a1: 1.5, a2: 0.5, b0: 1 });
    expect(scores.get("a1")).toBe(3);
    expect(spreadAcrossGroups(scores, source, 1)).toBe(scores);
  });

  it("moves another conversation's match up in rankHybrid, and refuses a decay above 1", () => {
    const ids = (groupDecay: number) => rankHybrid(tokenize("camping"), source, undefined, { feedbackDocs: 0, groupDecay }).map((hit) => hit.id);
    expect(ids(1).indexOf("b0")).toBeGreaterThan(1);
    expect(ids(0.1).indexOf("b0")).toBe(1);
    expect(() => ids(1.5)).toThrow(/groupDecay/);
  });
});

describe("rankHybrid lengthNorm (BM25 b per query)", () => {
  it("scores as an index built with that b, and refuses one outside 0..1", () => {
    const docs: [string, string][] = [["short", "camping"], ["long", "camping by the lake with the kids and the dog all weekend long"]];
    const build = (b?: number) => {
      const index = new RecallIndex(b === undefined ? {} : { b });
      docs.forEach(([id, text], i) => index.add(id, tokenize(text), "g", i));
      return index;
    };
    const terms = tokenize("camping");
    const asBuilt = build(0.2).score(terms, 10);
    const perQuery = build().score(terms, 10, 0.2);
    expect(asBuilt.size).toBe(2);
    for (const [id, score] of asBuilt) expect(perQuery.get(id)).toBeCloseTo(score, 12);
    expect(build().score(terms, 10).get("long")).toBeLessThan(perQuery.get("long") ?? 0);
    expect(() => rankHybrid(terms, indexSource(build()), undefined, { lengthNorm: 1.5 })).toThrow(/lengthNorm/);
  });
});
