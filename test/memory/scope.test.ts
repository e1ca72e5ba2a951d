import { describe, expect, it } from "vitest";
import { ID_RULES, validateId } from "../../src/memory/scope.js";

describe("validateId", () => {
  it.each([
    { id: "u1", why: "plain ASCII" },
    { id: "alice@example.com", why: "an e-mail address" },
    { id: "สมชาย", why: "Thai, with combining vowel marks inside the word" },
    { id: "नमस्ते", why: "Devanagari, with a virama and vowel signs inside the word" },
    { id: "🙂", why: "an emoji" },
    { id: "❤", why: "an emoji without a variation selector" },
    { id: "🇹🇭", why: "a flag (regional indicators)" },
    { id: "👍🏽", why: "an emoji with a skin-tone modifier" },
    { id: "é", why: "an accented letter in NFC" },
    { id: "Zoë-3", why: "an accented letter inside" },
    { id: "한국어", why: "Hangul syllables" },
    { id: "a\u0301b".normalize("NFC"), why: "a mark after a base letter that composes (NFC)" },
    { id: "x\u0331", why: "a mark after a base letter that has no precomposed form" },
  ])("accepts $why ($id)", ({ id }) => {
    expect(validateId("userId", id)).toBe(id);
  });

  it.each([
    { id: "s1\uFE0F", why: "variation selector 16", shows: "U+FE0F" },
    { id: "s1\uFE00", why: "variation selector 1", shows: "U+FE00" },
    { id: "❤\uFE0F", why: "an emoji with its presentation selector", shows: "U+FE0F" },
    { id: "s1\u{E0100}", why: "variation selector 17 (supplementary)", shows: "U+E0100" },
    { id: "s1\u{E01EF}", why: "variation selector 256", shows: "U+E01EF" },
    { id: "s1\u115F", why: "Hangul choseong filler", shows: "U+115F" },
    { id: "s1\u1160", why: "Hangul jungseong filler", shows: "U+1160" },
    { id: "s1\u3164", why: "Hangul filler", shows: "U+3164" },
    { id: "s1\uFFA0", why: "halfwidth Hangul filler", shows: "U+FFA0" },
    { id: "\u3164", why: "a Hangul filler alone", shows: "U+3164" },
    { id: "s\u034F1", why: "combining grapheme joiner", shows: "U+034F" },
    { id: "s1\u17B4", why: "Khmer inherent vowel aq", shows: "U+17B4" },
    { id: "s1\u17B5", why: "Khmer inherent vowel aa", shows: "U+17B5" },
    { id: "s1\u180B", why: "Mongolian free variation selector one", shows: "U+180B" },
    { id: "s1\u180F", why: "Mongolian free variation selector four", shows: "U+180F" },
    { id: "s1\u2065", why: "the unassigned U+2065 among the invisible operators", shows: "U+2065" },
    { id: "s1\uFFF0", why: "a reserved default-ignorable code point", shows: "U+FFF0" },
    { id: "s1\u{E0FFF}", why: "the last reserved default-ignorable code point", shows: "U+E0FFF" },
  ])("refuses $why with INVALID_ID naming the field and the character", ({ id, shows }) => {
    expect(() => validateId("sessionId", id)).toThrow(expect.objectContaining({ code: "INVALID_ID", field: "sessionId", message: expect.stringContaining(shows) as unknown }));
  });

  it.each([
    { id: "\u0301", why: "a lone combining acute accent" },
    { id: "\u0301s1", why: "a combining acute accent before the id" },
    { id: "\u0E34", why: "a lone Thai vowel sign" },
    { id: "\u093Eab", why: "a Devanagari vowel sign (Mc) at the start" },
    { id: "\u20DDx", why: "an enclosing circle (Me) at the start" },
  ])("refuses $why: a combining mark at the start", ({ id }) => {
    expect(() => validateId("userId", id)).toThrow(expect.objectContaining({ code: "INVALID_ID", field: "userId", message: expect.stringContaining("combining mark") as unknown }));
  });

  it.each([
    { id: "u\u202E1", why: "a bidi override (Cf)" },
    { id: "u\u200B1", why: "a zero-width space (Cf)" },
    { id: "u\u00001", why: "NUL (Cc)" },
    { id: "e\u0301", why: "a decomposed accent (not NFC)" },
    { id: " u1", why: "white space at the start" },
  ])("still refuses $why", ({ id }) => {
    expect(() => validateId("userId", id)).toThrow(expect.objectContaining({ code: "INVALID_ID", field: "userId" }));
  });

  it("says what it refuses in ID_RULES", () => {
    expect(ID_RULES).toContain("variation selectors");
    expect(ID_RULES).toContain("combining mark at the start");
  });
});
