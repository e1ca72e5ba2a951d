import { describe, expect, it } from "vitest";
import { rankHybrid, RecallIndex, recordTraits, tokenize, type LexicalSource } from "../../../src/memory/ranking/index.js";
import { demoteRepeats } from "../../../src/memory/ranking/diversity.js";
import { indexSource } from "../../../src/memory/ranking/index-source.js";

function sourceOf(docs: readonly (readonly [id: string, group: string, text: string])[]): LexicalSource {
  const index = new RecallIndex();
  docs.forEach(([id, group, text], i) => index.add(id, tokenize(text), group, i, recordTraits({ text })));
  return indexSource(index);
}

describe("demoteRepeats", () => {
  const source = sourceOf([
    ["a0", "a", "we went camping at the lake"],
    ["a1", "a", "camping was fun"],
    ["a2", "a", "camping and a pottery class"],
    ["a3", "a", "wow that sounds great"],
    ["b0", "b", "camping in the mountains"],
  ]);
  const asked = tokenize("camping lake pottery");
  const scores = new Map([["a0", 5], ["a1", 4], ["a2", 3], ["a3", 2], ["b0", 1]]);

  it("weighs a document whose asked terms a better one of its conversation all holds, and no other", () => {
    const demoted = demoteRepeats(scores, source, asked, 0.5);
    // a1 holds camping, which a0 holds; a2 adds pottery; a3 holds none (a neighbour); b0 is another conversation's.
    expect(Object.fromEntries(demoted)).toEqual({ a0: 5, a1: 2, a2: 3, a3: 2, b0: 1 });
    expect(scores.get("a1")).toBe(4);
  });

  it("compares with every better document of the conversation, not only the best", () => {
    const order = new Map([["a2", 5], ["a0", 4], ["a1", 3]]);
    expect(Object.fromEntries(demoteRepeats(order, source, asked, 0.5))).toEqual({ a2: 5, a0: 4, a1: 1.5 });
  });

  it("leaves the scores alone at weight 1 and when nothing repeats", () => {
    expect(demoteRepeats(scores, source, asked, 1)).toBe(scores);
    const distinct = new Map([["a0", 2], ["b0", 1]]);
    expect(demoteRepeats(distinct, source, asked, 0.5)).toBe(distinct);
  });
});

describe("rankHybrid: a list question's repeats (listRepeatWeight)", () => {
  // One session says "camping" three times; the other session's camping answer is weaker than each.
  const source = sourceOf([
    ["a0", "a", "camping camping trip"],
    ["a1", "a", "camping trip again"],
    ["a2", "a", "camping trip"],
    ["b0", "b", "camping trips by the river"],
    ...Array.from({ length: 30 }, (_, i) => [`f${i}`, "f", `filler words about nothing ${i}`] as const),
  ]);
  const ids = (options: Parameters<typeof rankHybrid>[3]) =>
    rankHybrid(tokenize("camping trips"), source, undefined, { feedbackDocs: 0, neighbourWeight: 0, listNeighbourWeight: 0, ...options }).map((hit) => hit.id);

  it("puts another session's answer above one session's repeats by default, and not when switched off", () => {
    expect(ids({ listQuery: true, listRepeatWeight: 1 }).indexOf("b0")).toBe(3);
    expect(ids({ listQuery: true }).indexOf("b0")).toBeLessThan(3);
  });

  it("leaves other questions as they were (repeatWeight 1 by default)", () => {
    expect(ids({})).toEqual(ids({ listRepeatWeight: 0.1 }));
    expect(ids({}).indexOf("b0")).toBe(3);
  });

  it("refuses a weight above 1", () => {
    expect(() => ids({ listRepeatWeight: 1.5 })).toThrow(/listRepeatWeight/);
    expect(() => ids({ repeatWeight: 2 })).toThrow(/repeatWeight/);
  });
});
