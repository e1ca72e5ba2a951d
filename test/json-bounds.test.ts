import { describe, expect, it } from "vitest";
import { assertJsonBounds, JSON_BOUNDS, parseJsonInput, pruneDeep } from "../src/json-bounds.js";
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

describe("parseJsonInput: JSON text from outside", () => {
  it.each([
    { name: "one key twice at the top", text: '{"user_id":"alice","user_id":"bob"}', field: "user_id" },
    { name: "one key twice, nested", text: '{"metadata":{"a":{"b":1,"c":2,"b":3}}}', field: "metadata.a.b" },
    { name: "one key twice in an object in an array", text: '{"list":[{"x":1},{"y":1,"y":2}]}', field: "list.1.y" },
    { name: "one key written twice, once with an escape", text: '{"a":1,"\\u0061":2}', field: "a" },
    { name: "a key with an escaped quote, twice", text: '{"a\\"b":1,"c":"\\\\","a\\"b":2}', field: 'a"b' },
    { name: "a duplicate after strings holding braces, commas and quotes", text: '{"s":"{\\"x\\":1,\\"x\\":2}","t":"[,]","s":0}', field: "s" },
    { name: "a duplicate in a top-level array", text: '[1,{"k":1,"k":1}]', field: "1.k" },
    { name: "an empty key twice", text: '{"":1,"":2}', field: "" },
    { name: "__proto__ twice", text: '{"__proto__":1,"__proto__":2}', field: "__proto__" },
  ])("refuses $name with DUPLICATE_KEY naming the key", ({ text, field }) => {
    expect(() => parseJsonInput(text)).toThrow(expect.objectContaining({ kind: "user", code: "DUPLICATE_KEY", field }));
  });

  it.each([
    { name: "one key in sibling objects", text: '{"a":{"x":1},"b":{"x":2},"c":[{"x":3},{"x":4}]}' },
    { name: "keys that differ only by case or an escape of another character", text: '{"a":1,"A":2,"\\u0062":3}' },
    { name: "a key's text as a value", text: '{"a":"a","b":["a","a"]}' },
    { name: "strings ending in backslashes", text: '{"a":"\\\\","b":"\\\\\\"","c":1}' },
    { name: "scalars", text: '"x"' },
  ])("accepts $name", ({ text }) => {
    expect(parseJsonInput(text)).toEqual(JSON.parse(text));
  });

  it("names the query parameter it reads and refuses text that is not JSON, over the bound or breaking the text rule", () => {
    expect(() => parseJsonInput('{"k":1,"k":2}', "metadata")).toThrow(expect.objectContaining({ code: "DUPLICATE_KEY", field: "metadata.k" }));
    expect(() => parseJsonInput('{"k":', "metadata")).toThrow(expect.objectContaining({ code: "INVALID_JSON", field: "metadata" }));
    expect(() => parseJsonInput('{"k":"\\u0000"}', "metadata")).toThrow(expect.objectContaining({ code: "INVALID_TEXT", field: "metadata.k" }));
    expect(() => parseJsonInput(`{"a":${"[".repeat(40)}${"]".repeat(40)}}`)).toThrow(expect.objectContaining({ code: "INPUT_TOO_COMPLEX" }));
  });

  it("refuses a too-deep value that a later duplicate hid from the structure bound", () => {
    const text = `{"a":${"[".repeat(100_000)}${"]".repeat(100_000)},"a":1}`;
    expect(() => parseJsonInput(text)).toThrow(expect.objectContaining({ code: "INPUT_TOO_COMPLEX", field: "a.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0" }));
  });
});
