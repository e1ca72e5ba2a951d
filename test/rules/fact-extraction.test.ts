import { describe, expect, it } from "vitest";
import { extractFacts } from "../../src/rules/facts/index.js";
import { classifyByKeywords } from "../../src/rules/keyword-classifier.js";
import { compare, loadLabelled, summarise } from "../../bench/lib/fact-scoring.js";

describe("extractFacts", () => {
  it.each([
    { text: "I am Tom", facts: [{ key: "name", value: "Tom" }] },
    { text: "I run a bakery in Chiang Mai", facts: [{ key: "business", value: "bakery" }, { key: "location.city", value: "Chiang Mai" }] },
    { text: "contact me by LINE, not email", facts: [{ key: "preference.contact", value: "LINE" }] },
    {
      text: "I prefer vegetarian food and I hate mornings",
      facts: [
        { key: "likes.vegetarian_food", value: "vegetarian food" },
        { key: "dislikes.mornings", value: "mornings" },
      ],
    },
    { text: "My birthday is on March 14", facts: [{ key: "birthday", value: "03-14" }] },
    { text: "ภรรยาผมชื่อนก", facts: [{ key: "family.wife", value: "นก" }] },
    { text: "main Mumbai mein rehta hoon", facts: [{ key: "location.city", value: "Mumbai" }] },
  ])("reads $text", ({ text, facts }) => {
    expect(extractFacts(text)).toEqual(expect.arrayContaining(facts));
    expect(extractFacts(text)).toHaveLength(facts.length);
  });

  it("reads a place named after its cue late in a long message", () => {
    const chatter = "ร้านที่ดีที่สุดที่เคยไปมา ".repeat(150);
    expect(extractFacts(`${chatter}ตอนนี้ผมอยู่ที่เชียงใหม่ครับ`)).toContainEqual(expect.objectContaining({ key: "location.city", value: "เชียงใหม่" }));
    expect(extractFacts(`${"The shop was busy and the staff were kind. ".repeat(60)}I live in Chiang Mai`)).toContainEqual(
      expect.objectContaining({ key: "location.city", value: "Chiang Mai" }),
    );
  });

  it("states nothing for questions, thanks and feedback", () => {
    for (const text of ["What is my phone number?", "I like your service, thanks!", "Is Bangkok hot in April?", "hello there"]) {
      expect(extractFacts(text)).toEqual([]);
    }
  });
});

describe("keyword classifier on stated facts", () => {
  it("keeps a stated phone number as INFORMATION worth saving", () => {
    const event = classifyByKeywords("My phone number is 555-0100");
    expect(event).toMatchObject({ type: "INFORMATION", attributeUpdates: [{ key: "phone", value: "555-0100" }] });
    expect(event.importance).toBeGreaterThanOrEqual(0.7);
  });

  it("types places as places and people as people", () => {
    const event = classifyByKeywords("I met Anna in Bangkok");
    expect(event.entities).toContainEqual({ type: "place", value: "Bangkok" });
    expect(event.entities).toContainEqual({ type: "person", value: "Anna" });
  });
});

describe("the labelled set (bench:extraction)", () => {
  it("meets the targets: precision ≥ 0.9 and recall ≥ 0.8 overall, ≥ 0.7 in every language", () => {
    const results = [...loadLabelled("dev"), ...loadLabelled("held-out")].map((message) => {
      const event = classifyByKeywords(message.text);
      return compare(message, { type: event.type, facts: event.attributeUpdates });
    });
    expect(results.length).toBeGreaterThanOrEqual(150);
    const report = summarise(results);
    expect(report.overall.precision).toBeGreaterThanOrEqual(0.9);
    expect(report.overall.recall).toBeGreaterThanOrEqual(0.8);
    for (const scores of Object.values(report.byLanguage)) {
      expect(scores.precision).toBeGreaterThanOrEqual(0.7);
      expect(scores.recall).toBeGreaterThanOrEqual(0.7);
    }
  });
});
