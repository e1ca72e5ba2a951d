import { describe, expect, it } from "vitest";
import { rankHybrid, RecallIndex, recordTraits, tokenize, type LexicalSource } from "../../../src/memory/ranking/index.js";
import { demoteNonAnswers } from "../../../src/memory/ranking/answer-order.js";
import { indexSource } from "../../../src/memory/ranking/index-source.js";

type Doc = readonly [id: string, speaker: string | undefined, text: string];

function sourceOf(docs: readonly Doc[]): LexicalSource {
  const index = new RecallIndex();
  docs.forEach(([id, speaker, text], i) => index.add(id, tokenize(text), "s", i, recordTraits({ text, ...(speaker ? { speaker } : {}) })));
  return indexSource(index);
}

const LONG = "then we all drove out past the old mill toward the lake where grandma baked bread while cousins built rafts, fished, sang songs and told stories";
const docs: Doc[] = [
  ["ask", "Bo", "What is your best camping memory?"],
  ["reply", "Ann", `Our camping trip, camping by the lake: ${LONG}`],
  ["short", "Ann", "Camping was fun!"],
  ["kind", "Ann", `I went swimming ${LONG}`],
];
const source = sourceOf(docs);
const scores = new Map([["ask", 8], ["reply", 6], ["short", 4], ["kind", 2]]);
const off = { askWeight: 1, shortWeight: 1, shortLength: 15, kindlessWeight: 1 };

describe("demoteNonAnswers", () => {
  it.each([
    { name: "a question", weights: { askWeight: 0.5 }, kinds: [], expected: { ask: 4, reply: 6, short: 4, kind: 2 } },
    { name: "a short turn", weights: { shortWeight: 0.5 }, kinds: [], expected: { ask: 4, reply: 6, short: 2, kind: 2 } },
    { name: "a turn holding no kind asked for", weights: { kindlessWeight: 0.5 }, kinds: ["swim"], expected: { ask: 4, reply: 3, short: 2, kind: 2 } },
    { name: "no kind weighing without kinds", weights: { kindlessWeight: 0.5 }, kinds: [], expected: { ask: 8, reply: 6, short: 4, kind: 2 } },
  ])("weighs $name when the query names a speaker", ({ weights, kinds, expected }) => {
    const out = demoteNonAnswers(scores, source, tokenize("Where has Ann camped?"), kinds, { ...off, ...weights });
    expect(Object.fromEntries(out)).toEqual(expected);
    expect(scores.get("ask")).toBe(8);
  });

  it("multiplies the factors of a document that is several of them", () => {
    const out = demoteNonAnswers(scores, source, tokenize("Where has Ann camped?"), ["swim"], { ...off, askWeight: 0.5, shortWeight: 0.5, kindlessWeight: 0.5 });
    expect(out.get("ask")).toBe(1);
    expect(out.get("kind")).toBe(2);
  });

  it("leaves the scores alone when the query names no speaker, the source knows none, or every weight is 1", () => {
    const all = { askWeight: 0.5, shortWeight: 0.5, shortLength: 15, kindlessWeight: 0.5 };
    expect(demoteNonAnswers(scores, source, tokenize("Where has Cy camped?"), ["swim"], all)).toBe(scores);
    const unnamed = sourceOf(docs.map(([id, , text]) => [id, undefined, text]));
    expect(demoteNonAnswers(scores, unnamed, tokenize("Where has Ann camped?"), ["swim"], all)).toBe(scores);
    expect(demoteNonAnswers(scores, source, tokenize("Where has Ann camped?"), ["swim"], off)).toBe(scores);
  });
});

describe("rankHybrid: what seldom answers a question about a person", () => {
  // namedLengthNorm at the index's own b (0.75): these tests weigh demoteNonAnswers alone.
  const ids = (query: string, options: Parameters<typeof rankHybrid>[3] = {}) =>
    rankHybrid(tokenize(query), source, undefined, { feedbackDocs: 0, neighbourWeight: 0, speakerWeight: 1, namedLengthNorm: 0.75, ...options }).map((hit) => hit.id);

  it("ranks a named person's answer above another's question by default, and not when switched off", () => {
    expect(ids("Ann camping", { askWeight: 1, shortWeight: 1 })).toEqual(["short", "ask", "reply"]);
    expect(ids("Ann camping")).toEqual(["short", "reply", "ask"]);
  });

  it("leaves a question that names nobody as it was", () => {
    expect(ids("camping")).toEqual(ids("camping", { askWeight: 1, shortWeight: 1 }));
  });

  it("refuses a weight above 1", () => {
    expect(() => ids("Ann camping", { askWeight: 1.5 })).toThrow(/askWeight/);
    expect(() => ids("Ann camping", { kindlessWeight: 2 })).toThrow(/kindlessWeight/);
  });
});

describe("rankHybrid: a named person's long turns (namedLengthNorm)", () => {
  const ids = (query: string, options: Parameters<typeof rankHybrid>[3] = {}) =>
    rankHybrid(tokenize(query), source, undefined, { feedbackDocs: 0, neighbourWeight: 0, speakerWeight: 1, askWeight: 1, ...options }).map((hit) => hit.id);

  it("ranks the named person's long answer above a short question by default, and not at the index's own b", () => {
    expect(ids("Ann camping")).toEqual(["short", "reply", "ask"]);
    expect(ids("Ann camping", { namedLengthNorm: 0.75 })).toEqual(["short", "ask", "reply"]);
  });

  it("leaves a question that names nobody as it was, and refuses a value outside 0..1", () => {
    expect(ids("camping")).toEqual(ids("camping", { namedLengthNorm: 0.75 }));
    expect(ids("camping")).toEqual(["short", "ask", "reply"]);
    expect(() => ids("Ann camping", { namedLengthNorm: 1.5 })).toThrow(/namedLengthNorm/);
  });
});
