import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/storage/sqlite/store.js";
import { DEFAULT_LIMITS } from "../../src/memory/limits.js";
import { HashedNgramEmbeddings } from "../../src/memory/ranking/index.js";
import { recallContext } from "../../src/memory/recall.js";
import { loadTranscript, saveTranscriptMessage } from "../../src/memory/transcript.js";

const scope = { tenantId: "acme", userId: "u1", sessionId: "s1" };
const at = (minute: number) => `2026-11-01T10:${String(minute).padStart(2, "0")}:00.000Z`;
const boilerplate =
  'No language model is configured, so this reply comes from the offline responder. You said: "my phone number is 555-0100"';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "offline-replies-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stores: [string, () => Promise<BaseStore>][] = [
  ["InMemoryStore", async () => new InMemoryStore()],
  ["SqliteStore", async () => SqliteStore.open(join(dir, `${Math.random()}.db`), { embeddings: new HashedNgramEmbeddings() })],
];

describe.each(stores)("offline replies in %s", (_name, make) => {
  it("are kept in the transcript but never recalled as similar messages or recent turns", async () => {
    const store = await make();
    for (let i = 0; i < 4; i += 1) {
      await saveTranscriptMessage(store, scope, { id: `u${i}`, role: "user", text: `my phone number is 555-010${i}`, parentId: i ? `a${i - 1}` : null, sessionId: "s1", createdAt: at(2 * i) });
      await saveTranscriptMessage(store, scope, { id: `a${i}`, role: "assistant", text: boilerplate, parentId: `u${i}`, sessionId: "s1", createdAt: at(2 * i + 1), model: "offline", recall: false });
    }
    const recalled = await recallContext(store, {
      scope: { ...scope, sessionId: "s2" },
      query: "what is my phone number",
      excludeIds: new Set(),
      limits: DEFAULT_LIMITS.recall,
      embeddings: new HashedNgramEmbeddings(),
    });
    expect(recalled.similar.length).toBeGreaterThan(0);
    expect(recalled.similar.every((m) => m.role === "user")).toBe(true);
    expect(recalled.recentTurns.length).toBeGreaterThan(0);
    expect(recalled.recentTurns.every((m) => m.role === "user")).toBe(true);
    const transcript = await loadTranscript(store, scope);
    expect(transcript.filter((m) => m.role === "assistant")).toHaveLength(4);
    await (store as { stop?: () => unknown }).stop?.();
  });
});
