import { describe, expect, it } from "vitest";
import { boundedInTime, expiryOf } from "../../src/rules/facts/expiry.js";

const now = new Date("2026-11-25T10:00:00.000Z"); // a Wednesday

describe("expiryOf", () => {
  it.each([
    { text: "I'm in Bangkok this week", expires: "2026-11-29T23:59:59.999Z" },
    { text: "I am staying in Chiang Mai until Friday", expires: "2026-11-27T23:59:59.999Z" },
    { text: "For the next 3 days my phone is 555-0100", expires: "2026-11-28T23:59:59.999Z" },
    { text: "Working from Tokyo for two weeks", expires: "2026-12-09T23:59:59.999Z" },
    { text: "Till 5 December I'm away", expires: "2026-12-05T23:59:59.999Z" },
    { text: "Tonight I'm at the Riverside hotel", expires: "2026-11-25T23:59:59.999Z" },
    { text: "This month I'm vegan", expires: "2026-11-30T23:59:59.999Z" },
    { text: "I live in Bangkok", expires: null },
    { text: "I have lived here for years", expires: null },
  ])("$text → $expires", ({ text, expires }) => {
    expect(expiryOf(text, now)).toBe(expires);
  });

  it("bounds every update of a bounded message, and none of another", () => {
    expect(boundedInTime([{ key: "location.city", value: "Chiang Mai" }], "I am staying in Chiang Mai until Friday", now)).toEqual([
      { key: "location.city", value: "Chiang Mai", expiresAt: "2026-11-27T23:59:59.999Z" },
    ]);
    expect(boundedInTime([{ key: "location.city", value: "Bangkok" }], "I live in Bangkok", now)).toEqual([{ key: "location.city", value: "Bangkok" }]);
  });
});
