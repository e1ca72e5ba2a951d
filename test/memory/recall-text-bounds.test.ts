import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseStore, Operation } from "@langchain/langgraph-checkpoint";
import { DEFAULT_LIMITS } from "../../src/memory/limits.js";
import { recallContext } from "../../src/memory/recall.js";
import type { TranscriptRecord } from "../../src/memory/records.js";
import { saveTranscriptMessages } from "../../src/memory/transcript.js";
import { SqliteStore } from "../../src/storage/sqlite/store.js";

// Recall asks the store for no more of a message's text than it hands on (`textChars`): what it
// recalls is the same as when the store hands every text back whole.

const scope = { tenantId: "t1", userId: "u1", sessionId: "s1" };
const FILLER = ["The quarterly report needs updated figures.", "แอปพลิเคชันปิดตัวเองทุกครั้งที่เปิดหน้าการตั้งค่า", "Our team moved the weekly meeting to Thursday."];

/** About `chars` characters of filler with `words` written at `at` (a fraction of the text). */
function message(chars: number, words: string, at: number): string {
  let filler = "";
  for (let i = 0; filler.length < chars; i += 1) filler += `${FILLER[i % FILLER.length] ?? ""} `;
  const cut = Math.floor(chars * at);
  return `${filler.slice(0, cut)} ${words} ${filler.slice(cut, chars)}`;
}

/** `store` with `textChars` taken out of every search: it hands every text back whole. */
function wholeTexts(store: BaseStore): BaseStore {
  const strip = <T extends object>(value: T): T => {
    const { textChars: _, ...rest } = value as T & { textChars?: number };
    return rest as T;
  };
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === "batch") return (ops: Operation[]) => target.batch(ops.map(strip));
      if (property === "search") return (prefix: string[], options = {}) => target.search(prefix, strip(options));
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}

let dir: string;
let store: SqliteStore;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "recall-text-bounds-"));
  store = SqliteStore.open(join(dir, "memory.db"));
  const texts = [
    message(32_000, "my blue bicycle was stolen near the station", 0.1),
    message(20_000, "the blue bicycle had a red bell", 0.7),
    message(9_500, "insurance for the bicycle", 0.5),
    "Where did you park the bicycle?",
    message(3_000, "the station has cameras", 0.9),
    message(12_000, "weekend plans", 0.2),
    message(1_001, "bicycle", 0.99),
    message(31_000, "a lock for a bicycle", 0.26),
  ];
  const records = texts.map((text, i): TranscriptRecord => ({
    id: `m${i}`,
    role: i % 2 === 0 ? "user" : "assistant",
    text,
    parentId: i === 0 ? null : `m${i - 1}`,
    sessionId: scope.sessionId,
    createdAt: `2026-10-01T10:00:${String(i).padStart(2, "0")}.000Z`,
  }));
  await saveTranscriptMessages(store, scope, records);
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("recall over a store that cuts long texts", () => {
  it.each([
    { name: "a short query", query: "Has anyone found my blue bicycle near the station?" },
    { name: "a long query", query: message(30_000, "blue bicycle station insurance", 0.05) },
  ])("recalls what it would with every text whole, for $name", async ({ query }) => {
    const request = { scope, query, excludeIds: new Set(["m7"]), limits: DEFAULT_LIMITS.recall };
    const asked: (number | undefined)[] = [];
    const search = vi.spyOn(store, "search").mockImplementation(async function (this: SqliteStore, ...args) {
      asked.push(args[1]?.textChars);
      return SqliteStore.prototype.search.apply(this, args);
    });
    const bounded = await recallContext(store, request);
    search.mockRestore();
    const whole = await recallContext(wholeTexts(store), request);

    expect(asked.filter((n) => n !== undefined).length).toBeGreaterThan(0);
    expect(bounded).toStrictEqual(whole);
    expect(bounded.similar.length).toBeGreaterThan(2);
    expect(bounded.recentTurns.length).toBeGreaterThan(2);
    // Long messages were recalled, cut: by their excerpt and by their start.
    expect(bounded.similar.some((m) => m.text.startsWith("…"))).toBe(true);
    expect(bounded.recentTurns.some((t) => t.text.endsWith("…"))).toBe(true);
  });
});
