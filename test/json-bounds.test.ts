import { describe, expect, it } from "vitest";
import { assertJsonBounds, JSON_BOUNDS, pruneDeep } from "../src/json-bounds.js";
import { parseImport } from "../src/memory/import-schema.js";
import { parseTurnInput } from "../src/graph/state/turn-input.js";

const nest = (levels: number): unknown => JSON.parse(`${"[".repeat(levels)}${"]".repeat(levels)}`);

describe("the structure bound and the text rule", () => {
  it.each([
    { name: "32 levels", value: { a: nest(31) }, ok: true },
    { name: "33 levels", value: { a: nest(32) }, field: "a.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0", code: "INPUT_TOO_COMPLEX" },
    { name: "100,000 levels", value: nest(100_000), code: "INPUT_TOO_COMPLEX" },
    { name: "a wide array", value: { list: new Array(JSON_BOUNDS.maxArrayItems + 1).fill(0) }, field: "list", code: "INPUT_TOO_COMPLEX" },
    { name: "many keys", value: { o: Object.fromEntries(Array.from({ length: JSON_BOUNDS.maxKeys + 1 }, (_, i) => [`k${i}`, 1])) }, field: "o", code: "INPUT_TOO_COMPLEX" },
    { name: "a long string", value: { s: "x".repeat(JSON_BOUNDS.maxStringChars + 1) }, field: "s", code: "INPUT_TOO_COMPLEX" },
    { name: "NUL", value: { list: ["ok", "a\u0000"] }, field: "list.1", code: "INVALID_TEXT" },
    { name: "a lone surrogate in a key", value: { ["\udfff"]: 1 }, field: "\udfff", code: "INVALID_TEXT" },
    { name: "Infinity", value: { n: Number.POSITIVE_INFINITY }, field: "n", code: "INVALID_INPUT" },
    { name: "emoji and every script", value: { s: "😀 ไทย עברית \u{1F3F3}\u{FE0F}\u200D\u{1F308}", n: 5e-324 }, ok: true },
  ])("$name", ({ value, ok, field, code }) => {
    if (ok) expect(assertJsonBounds(value)).toBe(value);
    else expect(() => assertJsonBounds(value)).toThrow(expect.objectContaining({ kind: "user", code, ...(field === undefined ? {} : { field }) }));
  });

  it("holds the library's turn input and import to it (the dev server's input goes through the same parse)", () => {
    expect(() => parseTurnInput({ tenantId: "t", userId: "u", sessionId: "s", message: "a\u0000" }, 1_000)).toThrow(expect.objectContaining({ code: "INVALID_TEXT", field: "message" }));
    expect(() => parseTurnInput({ tenantId: "t", userId: "u", sessionId: "s", message: "hi", metadata: { a: nest(40) } }, 1_000)).toThrow(
      expect.objectContaining({ code: "INPUT_TOO_COMPLEX" }),
    );
    const session = { sessionId: "s", startedAt: "2024-01-01T00:00:00Z", messages: [{ id: "m", role: "user", text: "x\ud800" }] };
    expect(() => parseImport([session])).toThrow(expect.objectContaining({ code: "INVALID_TEXT", field: "0.messages.0.text" }));
  });

  it("prunes stored data deeper than a bound, copying, and leaves shallow data as it is", () => {
    const shallow = { a: [1, { b: 2 }] };
    expect(pruneDeep(shallow, 3)).toEqual({ value: shallow, pruned: 0 });
    const deep = { a: { b: { c: { d: 1 } } }, e: 1 };
    expect(pruneDeep(deep, 2)).toEqual({ value: { a: { b: null }, e: 1 }, pruned: 1 });
    expect(deep.a.b.c.d).toBe(1);
  });
});
