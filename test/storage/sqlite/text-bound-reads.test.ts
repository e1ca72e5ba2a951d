import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import type { Item } from "@langchain/langgraph-checkpoint";
import { SqliteStore } from "../../../src/storage/sqlite/store.js";
import type { WeightedSearchOptions } from "../../../src/memory/ports/store.js";

// `textChars` (RecallSearchOptions): a search may hand a long `text` back as a prefix of it at least
// `textChars` long, and must hand everything else back as stored.

let dir: string;
let store: SqliteStore;
const ns = ["t1", "users", "u1", "sessions", "s1", "messages"];
const prefix = ns.slice(0, 4);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "sqlite-text-bound-"));
  store = SqliteStore.open(join(dir, "memory.db"));
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await store.deleteNamespacePrefix(["t1"]);
});

async function readBack(options: WeightedSearchOptions): Promise<Map<string, unknown>> {
  const items: Item[] = await store.search(prefix, { limit: 50, ...options });
  return new Map(items.map((item) => [item.key, item.value]));
}

/** What a store may return for `value` under `textChars`: the value, its `text` possibly cut to a long enough prefix. */
function expectBoundedCopy(read: unknown, stored: Record<string, unknown>, textChars: number): void {
  const { text, ...rest } = stored;
  const { text: readText, ...readRest } = read as Record<string, unknown>;
  expect(readRest).toStrictEqual(rest);
  if (typeof text !== "string") return expect(readText).toStrictEqual(text);
  expect(typeof readText).toBe("string");
  const got = readText as string;
  expect(text.startsWith(got)).toBe(true);
  expect(got.length).toBeGreaterThanOrEqual(Math.min(text.length, textChars));
}

describe("SqliteStore reads with textChars", () => {
  it("cuts a long text in recent and in ranked reads, and leaves short texts and other fields as stored", async () => {
    const long = `refund ${"the parcel has not arrived ".repeat(400)}`;
    await store.put(ns, "long", { id: "long", text: long, role: "user", files: [{ name: "a.pdf", size: 3 }] });
    await store.put(ns, "short", { id: "short", text: "refund please", role: "user" });
    await store.put(ns, "untexted", { id: "untexted", note: "refund ".repeat(300), text: 12 });
    for (const query of [undefined, "refund"]) {
      const read = await readBack({ query, textChars: 100 });
      expect((read.get("long") as { text: string }).text).toBe(long.slice(0, 100));
      expect(read.get("long")).toMatchObject({ id: "long", role: "user", files: [{ name: "a.pdf", size: 3 }] });
      expect(read.get("short")).toStrictEqual({ id: "short", text: "refund please", role: "user" });
      expect(read.get("untexted")).toStrictEqual({ id: "untexted", note: "refund ".repeat(300), text: 12 });
    }
    expect((await readBack({})).get("long")).toMatchObject({ text: long });
  });

  it.each([
    { name: "a lone surrogate", text: `ab\ud800${"c".repeat(200)}` },
    { name: "a NUL", text: `ab\u0000${"c".repeat(200)}` },
    { name: "a character from U+D000", text: `ab한${"c".repeat(200)}` },
  ])("hands back the whole value when the kept part holds $name", async ({ text }) => {
    await store.put(ns, "m", { text });
    expect((await readBack({ textChars: 10 })).get("m")).toStrictEqual({ text });
  });

  it("hands back whole a value nested deeper than SQLite's JSON reads", async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 1_100; i += 1) deep = [deep];
    const value = { text: "x".repeat(50), deep };
    await store.put(ns, "deep", value);
    expect((await readBack({ textChars: 10 })).get("deep")).toStrictEqual(value);
  });

  it("refuses a textChars that is not an integer ≥ 1", async () => {
    for (const textChars of [0, -1, 1.5, Number.NaN]) {
      await expect(store.search(prefix, { textChars })).rejects.toMatchObject({ code: "INVALID_INPUT", field: "textChars" });
    }
  });

  it("hands back a prefix at least textChars long of any text, and every other field as stored", async () => {
    const unit = fc.oneof(
      fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
      fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
      fc.constantFrom("a", " ", "\u0000", "\"", "\\", "ก", "😀"),
    );
    const record = fc.record({
      text: fc.oneof(fc.string({ unit, maxLength: 60 }), fc.constant(null), fc.integer()),
      role: fc.string({ unit, maxLength: 5 }),
      n: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer()),
      list: fc.array(fc.string({ unit, maxLength: 5 }), { maxLength: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(record, fc.integer({ min: 1, max: 40 }), async (value, textChars) => {
        await store.put(ns, "p", value);
        const stored = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
        for (const query of [undefined, "a"]) {
          const read = await readBack({ query, textChars });
          // A ranked read finds only what matches the query.
          if (query === undefined || read.has("p")) expectBoundedCopy(read.get("p"), stored, textChars);
        }
      }),
      { numRuns: 300 },
    );
  });
});
