import { renderMemoryContext } from "../../src/memory/context.js";
import { excerpt, excerpter } from "../../src/memory/excerpt.js";
import { MAX_RANKED_CHARS } from "../../src/memory/ranking/tokenize.js";
import { DEFAULT_LIMITS } from "../../src/memory/limits.js";
import { EMPTY_CONTEXT, type MemoryContext } from "../../src/memory/recall.js";
import { annotateRelativeDates } from "../../src/memory/relative-dates.js";
import type { SimilarMessage } from "../../src/memory/similar.js";

const filler = (n: number): string => Array.from({ length: n }, (_, i) => `word${i}`).join(" ");

describe("excerpt", () => {
  it("shows the part of a long text that matches the query, marked as cut on both sides", () => {
    const text = `${filler(400)} My sister Maya adopted a greyhound named Pixel last spring. ${filler(400)}`;
    const part = excerpt(text, "What is the name of Maya's greyhound?", 300);
    expect(part).toContain("Maya adopted a greyhound named Pixel");
    expect(part.startsWith("…")).toBe(true);
    expect(part.endsWith("…")).toBe(true);
    expect(part.length).toBeLessThanOrEqual(300);
  });

  it("cuts the same text for each query by what that query matches", () => {
    const text = `${filler(300)} Maya adopted a greyhound named Pixel. ${filler(300)} Tom bought a red kayak in Oslo. ${filler(300)}`;
    const cut = excerpter("Which greyhound did Maya adopt?");
    expect(cut(text, 200)).toContain("Maya adopted a greyhound");
    expect(excerpter("Where did Tom buy his kayak?")(text, 200)).toContain("Tom bought a red kayak in Oslo");
    expect(cut(text, 200)).toContain("Maya adopted a greyhound");
  });

  it("looks for matches only in the part ranking reads", () => {
    const text = `${filler(1500)} Maya adopted a greyhound named Pixel.`;
    expect(text.length).toBeGreaterThan(MAX_RANKED_CHARS);
    expect(excerpt(text, "Maya greyhound Pixel", 300)).toBe(excerpt(filler(1500), "Maya greyhound Pixel", 300));
  });

  it.each([
    { text: "short text", query: "anything", max: 100, expected: "short text" },
    { text: `${filler(100)}`, query: "nothing matches", max: 20, expected: "word0 word1 word2 w…" },
  ])("keeps $text.length characters within $max", ({ text, query, max, expected }) => {
    expect(excerpt(text, query, max)).toBe(expected);
  });
});

describe("annotateRelativeDates", () => {
  const said = "2023-05-08T13:56:00.000Z";
  it.each([
    { text: "I went to a support group yesterday.", expected: "I went to a support group yesterday [7 May 2023]." },
    { text: "I ran a charity race last Saturday", expected: "I ran a charity race last Saturday [6 May 2023]" },
    { text: "We moved here two weeks ago", expected: "We moved here two weeks ago [24 April 2023]" },
    { text: "I'm going camping next month!", expected: "I'm going camping next month [June 2023]!" },
    { text: "last year we went to Paris", expected: "last year [2022] we went to Paris" },
    { text: "I met her on 3 June 2022 and have known her for 4 years", expected: "I met her on 3 June 2022 and have known her for 4 years" },
  ])("$text", ({ text, expected }) => {
    expect(annotateRelativeDates(text, said)).toBe(expected);
  });

  it("leaves a text alone when the time it was said is unknown", () => {
    expect(annotateRelativeDates("see you tomorrow", "not a date")).toBe("see you tomorrow");
  });

  it("dates each expression of a long text, wherever it stands", () => {
    const text = `${filler(300)} I went there yesterday. ${filler(300)} We fly back next month. ${filler(300)}`;
    const dated = annotateRelativeDates(text, said);
    expect(dated).toContain("I went there yesterday [7 May 2023].");
    expect(dated).toContain("We fly back next month [June 2023].");
    expect(dated.replace(/ \[[^\]]+\]/g, "")).toBe(text);
  });

  it("dates the same text again for another time it was said", () => {
    expect(annotateRelativeDates("I went to a support group yesterday.", said)).toContain("[7 May 2023]");
    expect(annotateRelativeDates("I went to a support group yesterday.", "2024-01-10T09:00:00.000Z")).toContain("[9 January 2024]");
  });

  it("keeps each time the same words were said apart, however they alternate", () => {
    const text = "Send the card to my sister, she moved last month";
    const times = ["2023-05-08T13:56:00.000Z", "2024-01-10T09:00:00.000Z", "2023-05-08T13:56:00.000Z", "2024-01-10T09:00:00.000Z"];
    expect(times.map((at) => annotateRelativeDates(text, at))).toEqual([
      "Send the card to my sister, she moved last month [April 2023]",
      "Send the card to my sister, she moved last month [December 2023]",
      "Send the card to my sister, she moved last month [April 2023]",
      "Send the card to my sister, she moved last month [December 2023]",
    ]);
  });
});

function similar(i: number): SimilarMessage {
  const id = `m${i}`;
  return { id, role: "user", text: `turn ${i} about gardening`, sessionId: "s", createdAt: "2023-05-08T10:00:00Z", turnIds: [id], score: 1 - i / 10, ranking: { fused: 1 } };
}

describe("renderMemoryContext", () => {
  it("shows up to eight similar messages by score and names the ids it shows", () => {
    const context: MemoryContext = { ...EMPTY_CONTEXT, similar: Array.from({ length: 10 }, (_, i) => similar(i)) };
    const rendered = renderMemoryContext(Object.freeze(context), DEFAULT_LIMITS.context);
    expect(rendered.sections.similar).toHaveLength(8);
    expect(rendered.shownIds).toEqual(["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7"]);
    expect(rendered.tokens).toBeLessThanOrEqual(DEFAULT_LIMITS.context.tokenBudget);
  });

  it("dates what a similar message said relative to when it was said", () => {
    const said: SimilarMessage = { ...similar(0), text: "I painted a sunrise yesterday" };
    const rendered = renderMemoryContext({ ...EMPTY_CONTEXT, similar: [said] }, DEFAULT_LIMITS.context);
    expect(rendered.text).toContain("(2023-05-08) user: I painted a sunrise yesterday [7 May 2023]");
  });

  it("names only the lines that fit the token budget", () => {
    const context: MemoryContext = { ...EMPTY_CONTEXT, similar: Array.from({ length: 10 }, (_, i) => similar(i)) };
    const rendered = renderMemoryContext(context, { ...DEFAULT_LIMITS.context, tokenBudget: 30 });
    expect(rendered.shownIds).toEqual(rendered.sections.similar?.map((_, i) => `m${i}`));
    expect(rendered.shownIds?.length).toBeLessThan(8);
  });
});
