import { describe, expect, it } from "vitest";
import { REDACTED, redactDeep, redactor } from "../../src/memory/redaction.js";

describe("redactor", () => {
  it.each([
    { values: ["Bangkok"], text: "I moved to bangkok last week", out: `I moved to ${REDACTED} last week` },
    { values: ["Ann"], text: "Annual report by Ann.", out: `Annual report by ${REDACTED}.` },
    { values: ["Chiang", "Chiang Mai"], text: "Chiang Mai is home", out: `${REDACTED} is home` },
    { values: ["34"], text: "I am 34, order 1342", out: `I am ${REDACTED}, order 1342` },
    { values: ["เชียงใหม่"], text: "ฉันอยู่เชียงใหม่ครับ", out: `ฉันอยู่${REDACTED}ครับ` },
    { values: ["a.b*c"], text: "x a.b*c y axbbc", out: `x ${REDACTED} y axbbc` },
    { values: ["Rotterdam"], text: "Nothing here", out: "Nothing here" },
  ])("$values in '$text'", ({ values, text, out }) => {
    const redact = redactor(values)!;
    expect(redact(text)).toBe(out);
    expect(redact(text)).toBe(out); // no state kept between calls
  });

  it("is null when there is nothing to match", () => {
    expect(redactor(["", "  "])).toBeNull();
  });
});

describe("redactDeep", () => {
  const redact = redactor(["Bangkok"])!;

  it("rewrites every string, keeps keys, and leaves the input as it was", () => {
    const input = Object.freeze({ text: "Bangkok", entities: Object.freeze([Object.freeze({ type: "place", value: "bangkok" })]), n: 3, keep: "x" });
    const out = redactDeep(input, redact);
    expect(out).toEqual({ text: REDACTED, entities: [{ type: "place", value: REDACTED }], n: 3, keep: "x" });
    expect(input.text).toBe("Bangkok");
  });

  it("returns the same object when nothing changed", () => {
    const input = { a: ["x", { b: "y" }], c: null };
    expect(redactDeep(input, redact)).toBe(input);
  });
});

describe("redactDeep keeps what names things", () => {
  it("never rewrites ids, keys, references or times, so records still point at each other", () => {
    const redact = redactor(["42"])!;
    const event = { id: "order-42", messageId: "order-42", sessionId: "s-42", createdAt: "2026-01-01T00:42:00Z", text: "order 42 is late", entities: [{ type: "order", value: "42" }] };
    expect(redactDeep(event, redact)).toEqual({ ...event, text: `order ${REDACTED} is late`, entities: [{ type: "order", value: REDACTED }] });
  });
});
