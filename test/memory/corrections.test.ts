import { describe, expect, it } from "vitest";
import { correctionMarker, correctionsOf, MAX_CORRECTIONS_PER_KEY } from "../../src/memory/corrections.js";
import type { FactRecord } from "../../src/memory/records.js";

const fact = (id: string, key: string, value: string, validFrom: string, validTo: string | null): FactRecord => ({
  id,
  key,
  value,
  text: `${key}: ${value}`,
  validFrom,
  validTo,
  sourceMessageIds: [],
  sessionId: "s",
});

const rotterdam = fact("c1", "location.city", "Rotterdam", "2026-01-01T00:00:00Z", "2026-03-01T00:00:00Z");
const utrecht = fact("c2", "location.city", "Utrecht", "2026-03-01T00:00:00Z", "2026-05-01T00:00:00Z");
const amsterdam = fact("c3", "location.city", "Amsterdam", "2026-05-01T00:00:00Z", null);

describe("correctionsOf", () => {
  it("lists every earlier value of a key against its current one, the newest first", () => {
    const facts = Object.freeze([rotterdam, utrecht, amsterdam]);
    expect(correctionsOf(facts, [amsterdam]).map((c) => [c.old, c.current])).toEqual([
      ["Utrecht", "Amsterdam"],
      ["Rotterdam", "Amsterdam"],
    ]);
  });

  it("says a key with no current value holds none of its old values", () => {
    expect(correctionsOf([rotterdam], [])).toEqual([{ key: "location.city", old: "Rotterdam", current: null, since: rotterdam.validTo }]);
  });

  it("has nothing to correct when a value came back or never changed", () => {
    const back = fact("c4", "location.city", "rotterdam", "2026-06-01T00:00:00Z", null);
    expect(correctionsOf([rotterdam, back], [back])).toEqual([]);
    expect(correctionsOf([amsterdam], [amsterdam])).toEqual([]);
  });
});

describe("correctionMarker", () => {
  const mark = correctionMarker(correctionsOf([rotterdam, utrecht, amsterdam], [amsterdam]));

  it.each([
    { text: "I live in Rotterdam", out: "(since 2026-05-01 location city is Amsterdam, not Rotterdam) I live in Rotterdam" },
    { text: "I moved from Utrecht to Amsterdam", out: "I moved from Utrecht to Amsterdam" },
    { text: "Rotterdammers are loud", out: "Rotterdammers are loud" },
    { text: "nothing about it", out: "nothing about it" },
  ])("'$text'", ({ text, out }) => {
    expect(mark(text)).toBe(out);
    expect(mark(text)).toBe(out);
  });

  it("says a retired value is no longer current", () => {
    expect(correctionMarker(correctionsOf([rotterdam], []))("I live in Rotterdam")).toBe("(location city Rotterdam is no longer current) I live in Rotterdam");
  });
});

describe("a key that changes every turn", () => {
  it("is corrected for its newest earlier values only, and one scan finds them", () => {
    const versions = Array.from({ length: 60 }, (_, i) =>
      fact(`o${i}`, "order_number", String(1000 + i), `2026-01-01T00:${String(i).padStart(2, "0")}:00Z`, i === 59 ? null : `2026-01-01T00:${String(i + 1).padStart(2, "0")}:00Z`),
    );
    const corrections = correctionsOf(versions, [versions[59]!]);
    expect(corrections).toHaveLength(MAX_CORRECTIONS_PER_KEY);
    expect(corrections[0]?.old).toBe("1058");
    const mark = correctionMarker(corrections);
    expect(mark("my order 1058 is late")).toBe("(since 2026-01-01 order number is 1059, not 1058) my order 1058 is late");
    expect(mark("my order 1001 is late")).toBe("my order 1001 is late");
  });
});
