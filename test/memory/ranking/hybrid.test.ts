import {
  addNeighbourContext,
  dateWords,
  expansionTerms,
  rankHybrid,
  RecallIndex,
  recordIndexText,
  recordTraits,
  tokenize,
  type LexicalSource,
} from "../../../src/memory/ranking/index.js";

function sourceOf(
  docs: Record<string, string>,
  group = "g",
  roles: Record<string, string> = {},
  speakers: Record<string, string> = {},
): LexicalSource & { index: RecallIndex } {
  const index = new RecallIndex();
  Object.entries(docs).forEach(([id, text], i) => index.add(id, tokenize(text), group, i, recordTraits({ text, role: roles[id], speaker: speakers[id] })));
  return {
    index,
    score: (terms, limit) => index.score(terms, limit),
    termsOf: (ids) => index.termsOf(ids),
    neighboursOf: (ids) => index.neighboursOf(ids),
    lengthsOf: (ids) => index.lengthsOf(ids),
    documentShare: (term) => index.documentShare(term),
    labelsOf: (ids) => index.labelsOf(ids),
    answersOf: (ids) => index.answersOf(ids),
    speakersOf: (ids) => index.speakersOf(ids),
  };
}

describe("recordTraits", () => {
  it.each([
    { value: { role: "user", text: "Where do you live?  \n" }, expected: { label: "user", asks: true } },
    { value: { role: "assistant", text: "In Porto." }, expected: { label: "assistant" } },
    { value: { text: "?" }, expected: { asks: true } },
    { value: { role: 3, text: "   " }, expected: {} },
    { value: { role: "user", text: "Hi", speaker: "Ann" }, expected: { label: "user", speaker: "Ann" } },
    { value: { text: "Hi", speaker: "" }, expected: {} },
    { value: null, expected: {} },
  ])("finds $expected in $value", ({ value, expected }) => {
    expect(recordTraits(value)).toEqual(expected);
  });

  it("reads a long run of trailing whitespace in linear time", () => {
    expect(recordTraits({ text: `is it?${" ".repeat(200_000)}x${" ".repeat(200_000)}` })).toEqual({});
  });
});

describe("rankHybrid label weights and answers", () => {
  const docs = {
    u1: "I adopted a grey cat called Miso last spring",
    a1: "Cats: a grey cat like Miso, a grey cat like yours, loves a cat tree and grey cat toys",
    u2: "What should I cook tonight",
    a2: "Try a risotto",
  };
  const roles = { u1: "user", a1: "assistant", u2: "user", a2: "assistant" };

  it("puts a demoted label below what it outscored, and leaves the order alone without weights", () => {
    const source = sourceOf(docs, "g", roles);
    const plain = rankHybrid(tokenize("grey cat Miso"), source, undefined, { includeContextOnly: false }).map((h) => h.id);
    const weighted = rankHybrid(tokenize("grey cat Miso"), source, undefined, { includeContextOnly: false, labelWeights: { assistant: 0.15 } });
    expect(plain.slice(0, 2)).toEqual(["a1", "u1"]);
    expect(weighted.map((h) => h.id).slice(0, 2)).toEqual(["u1", "a1"]);
  });

  it("refuses a label weight outside 0..1", () => {
    expect(() => rankHybrid(["cat"], sourceOf(docs), undefined, { labelWeights: { assistant: 2 } })).toThrow(/label "assistant"/);
  });

  it("lends the turn after a question more of the question's score", () => {
    const source = sourceOf({ q: "Which race are you entering?", x: "Porto, in October.", y: "Sounds fun" });
    expect(source.answersOf?.(["q", "x", "y"])).toEqual(new Map([["q", "x"]]));
    const context = (questionLend: number) =>
      rankHybrid(tokenize("race entering"), source, undefined, { questionLend, contextHalfLength: 0, feedbackDocs: 0 }).find((h) => h.id === "x")?.context ?? 0;
    expect(context(2)).toBeCloseTo(2 * context(1), 9);
    expect(context(1)).toBeGreaterThan(0);
  });
});

describe("rankHybrid across another speaker's short reply (bridgeLength)", () => {
  // Ann's two turns around Bo's short reply; only the first shares a word with the query.
  const docs = {
    a1: "I finally visited the lighthouse on the north cape last weekend",
    b1: "Wow! How was it?",
    a2: "Windy, but the view over the cliffs was worth every step",
    b2: "Sounds lovely",
  };
  const roles = { a1: "user", b1: "assistant", a2: "user", b2: "assistant" };
  const contextOf = (id: string, options: Parameters<typeof rankHybrid>[3], source = sourceOf(docs, "g", roles)): number | undefined =>
    rankHybrid(tokenize("lighthouse north cape"), source, undefined, { feedbackDocs: 0, ...options }).find((h) => h.id === id)?.context;

  it("lends the turn after the reply as a neighbour, and nothing with bridgeLength 0", () => {
    expect(contextOf("a2", {})).toBeGreaterThan(0);
    expect(contextOf("a2", { bridgeLength: 0 })).toBeUndefined();
    // The reply itself is a neighbour either way.
    expect(contextOf("b1", { bridgeLength: 0 })).toBeGreaterThan(0);
  });

  it("does not bridge a reply longer than bridgeLength terms", () => {
    const length = tokenize(docs.b1).length;
    expect(contextOf("a2", { bridgeLength: length })).toBeGreaterThan(0);
    expect(contextOf("a2", { bridgeLength: length - 0.5 })).toBeUndefined();
  });

  it("bridges only one speaker's turns around another's", () => {
    expect(contextOf("a2", {}, sourceOf(docs))).toBeUndefined();
    expect(contextOf("a2", {}, sourceOf(docs, "g", { ...roles, b1: "user" }))).toBeUndefined();
  });
});

describe("rankHybrid for a query naming a speaker (speakerWeight)", () => {
  const docs = {
    ann1: "Ann: I sang jazz at the festival with my jazz band",
    bo: "Bo: jazz festival, jazz all night",
    ann2: "Ann: the festival was fun",
  };
  const source = sourceOf(docs, "g", {}, { ann1: "Ann", bo: "Bo", ann2: "Ann" });
  const ids = (query: string, speakerWeight: number) =>
    rankHybrid(tokenize(query), source, undefined, { feedbackDocs: 0, neighbourWeight: 0, speakerWeight }).map((h) => h.id);

  it("weighs what others said when the best match is by the speaker the query names", () => {
    const query = "What jazz did Ann hear at the festival?";
    expect(ids(query, 1)).toEqual(["ann1", "bo", "ann2"]);
    expect(ids(query, 0.5)).toEqual(["ann1", "ann2", "bo"]);
    // The lexical score stays as it was: only the order follows the weighed score.
    const hit = rankHybrid(tokenize(query), source, undefined, { feedbackDocs: 0, neighbourWeight: 0, speakerWeight: 0.5 }).find((h) => h.id === "bo");
    expect(hit?.lexical).toBeCloseTo(source.score(tokenize(query), 10).get("bo") ?? 0, 9);
  });

  it("leaves the order alone when another speaker said it best, or when no speaker is named", () => {
    for (const query of ["What jazz did Ann hear all night?", "Who heard jazz at the festival?"]) {
      expect(ids(query, 0.1)).toEqual(ids(query, 1));
    }
  });

  it("refuses a speaker weight above 1", () => {
    expect(() => ids("Ann", 1.5)).toThrow(/speakerWeight/);
  });
});

describe("recordIndexText", () => {
  it.each([
    { value: { text: "hello" }, expected: "hello" },
    { value: { text: "hello", speaker: "Ann" }, expected: "Ann: hello" },
    { value: { text: "hello", speaker: " ", createdAt: "2023-05-08T13:56:00Z" }, expected: "hello\n8 May 2023" },
    { value: { text: "hi", speaker: "Bo", createdAt: "not a date" }, expected: "Bo: hi" },
    { value: { title: "no text" }, expected: undefined },
  ])("indexes $value as $expected", ({ value, expected }) => {
    expect(recordIndexText(Object.freeze(value))).toBe(expected);
  });

  it("writes dates in words, in UTC", () => {
    expect(dateWords("2024-12-31T23:30:00-02:00")).toBe("1 January 2025");
    expect(dateWords("")).toBe("");
  });
});

describe("expansionTerms", () => {
  it("takes the most frequent feedback terms that are not query terms, ties in order of appearance", () => {
    const feedback = [["guitar", "lesson", "teacher"], ["guitar", "teacher", "song"], ["teacher"]];
    expect(expansionTerms(["guitar"], feedback, 2)).toEqual(["teacher", "lesson"]);
  });

  it("skips terms the filter refuses and returns nothing for count 0", () => {
    expect(expansionTerms([], [["ann", "paint", "ann"]], 5, (t) => t !== "ann")).toEqual(["paint"]);
    expect(expansionTerms([], [["a1"]], 0)).toEqual([]);
  });
});

describe("addNeighbourContext", () => {
  it("adds a share of each neighbour's score and scores unmatched neighbours", () => {
    const scores = new Map([["b", 10]]);
    const neighbours = new Map([["b", ["a", "c"]]]);
    const { scores: out, context } = addNeighbourContext(scores, neighbours, 0.5);
    expect(Object.fromEntries(out)).toEqual({ b: 10, a: 5, c: 5 });
    expect(Object.fromEntries(context)).toEqual({ a: 5, c: 5 });
  });

  it("changes nothing with weight 0", () => {
    const { scores } = addNeighbourContext(new Map([["x", 1]]), new Map([["x", ["y"]]]), 0);
    expect(Object.fromEntries(scores)).toEqual({ x: 1 });
  });
});

describe("RecallIndex", () => {
  it("knows neighbours within a group, in order, and the newest ids", () => {
    const index = new RecallIndex();
    index.add("3", ["c"], "s1", 3);
    index.add("1", ["a"], "s1", 1);
    index.add("2", ["b"], "s2", 2);
    index.add("4", ["d"], "s1", 4);
    expect(Object.fromEntries(index.neighboursOf(["1", "3", "2"]))).toEqual({ "1": ["3"], "3": ["1", "4"], "2": [] });
    expect(index.newest(2)).toEqual(["4", "3"]);
    index.remove("3");
    expect(index.neighboursOf(["1"]).get("1")).toEqual(["4"]);
    expect(index.newest(10)).toEqual(["4", "2", "1"]);
  });

  it("returns at most `limit` scores, the best ones", () => {
    const index = new RecallIndex();
    for (let i = 0; i < 20; i++) index.add(String(i), [...new Array<string>(i + 1).fill("x"), "pad", "pad", "pad"], "g", i);
    const best = index.score(["x"], 3);
    expect([...best.keys()].sort()).toEqual(["17", "18", "19"]);
  });
});

describe("rankHybrid", () => {
  const docs = {
    q: "Did you ever take guitar lessons?",
    a: "Yes, for two years with a teacher in Lisbon.",
    other: "The weather was lovely at the beach.",
    far: "I bought a new lamp.",
  };

  it("ranks the turn after a matching question through neighbour context, with provenance", () => {
    const results = rankHybrid(tokenize("guitar lessons"), sourceOf(docs), undefined);
    expect(results.map((r) => r.id)).toEqual(["q", "a"]);
    expect(results[1]?.lexical).toBeUndefined();
    expect(results[1]?.context).toBeGreaterThan(0);
    expect(results[0]?.parts.lexical?.rank).toBe(1);
  });

  it("returns only matches when includeContextOnly is false", () => {
    const results = rankHybrid(tokenize("guitar lessons"), sourceOf(docs), undefined, { includeContextOnly: false });
    expect(results.map((r) => r.id)).toEqual(["q"]);
  });

  it("fuses vector hits, which may have no lexical match", () => {
    const results = rankHybrid(tokenize("guitar"), sourceOf(docs), () => [{ id: "far", score: 0.9 }], { neighbourWeight: 0 });
    expect(results.map((r) => r.id).sort()).toEqual(["far", "q"]);
    expect(results.find((r) => r.id === "far")?.parts.vector?.score).toBe(0.9);
  });

  it("expands the query with feedback terms, never with terms most documents hold", () => {
    const source = sourceOf({
      d1: "Ann: guitar teacher Lisbon",
      d2: "Ann: teacher Lisbon again",
      d3: "Ann: the beach",
      d4: "Ann: a lamp",
    });
    const seen: string[][] = [];
    const spy: LexicalSource = { ...source, score: (terms, limit) => (seen.push([...terms]), source.score(terms, limit)) };
    const results = rankHybrid(tokenize("guitar"), spy, undefined, { feedbackDocs: 1, feedbackTerms: 3, neighbourWeight: 0, feedbackMaxShare: 0.5 });
    expect(seen[1]).toEqual(["teacher", "lisbon"]);
    expect(results.map((r) => r.id)).toEqual(["d1", "d2"]);
  });

  it("gives a short turn more of its neighbour's context than a long one (contextHalfLength)", () => {
    const filler = Array.from({ length: 60 }, (_, i) => `filler${i}`).join(" ");
    const source = sourceOf({ long: `teacher ${filler}`, strong: "guitar teacher lessons", short: "teacher" });
    const options = { feedbackDocs: 0, includeContextOnly: false, neighbourWeight: 0.5, contextHalfLength: 60 };
    const results = rankHybrid(tokenize("guitar teacher"), source, undefined, options);
    const context = (id: string): number => results.find((r) => r.id === id)?.context ?? 0;
    expect(context("short")).toBeCloseTo((0.5 * 60) / 61 * (results.find((r) => r.id === "strong")?.lexical ?? 0), 6);
    expect(context("long")).toBeCloseTo((context("short") * 61) / 121, 6);
    const flat = rankHybrid(tokenize("guitar teacher"), source, undefined, { ...options, contextHalfLength: 0 });
    expect(flat.find((r) => r.id === "long")?.context).toBeCloseTo(flat.find((r) => r.id === "short")?.context ?? -1, 9);
  });

  it("returns nothing for a query without terms and no vector hits, and refuses bad options", () => {
    expect(rankHybrid([], sourceOf(docs), undefined)).toEqual([]);
    expect(() => rankHybrid(["x"], sourceOf(docs), undefined, { neighbourWeight: -1 })).toThrow(/neighbourWeight/);
  });
});

describe("rankHybrid with a page bound (limit)", () => {
  // Ties included: several documents score alike, so the order among equals must survive the bound too.
  const many = Object.fromEntries(
    Array.from({ length: 40 }, (_, i) => [`d${i}`, i % 3 === 0 ? `we hiked the ridge trail ${i % 5 === 0 ? "at dawn" : ""}` : `ok ${i}`]),
  );
  const source = sourceOf(many, "g", Object.fromEntries(Object.keys(many).map((id, i) => [id, i % 2 === 0 ? "user" : "assistant"])));

  it.each([1, 3, 7, 20])("gives the first %i hits of the unbounded ranking, with the same scores and explanations", (limit) => {
    const all = rankHybrid(tokenize("ridge trail at dawn"), source, undefined);
    expect(all.length).toBeGreaterThan(limit);
    expect(rankHybrid(tokenize("ridge trail at dawn"), source, undefined, { limit })).toEqual(all.slice(0, limit));
  });
});
