import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createMemoryGraph, type MemoryGraph } from "../../src/app/create-memory-graph.js";
import { setLogLevel } from "../../src/logger.js";
import { EVENT_TEXT_CHARS } from "../../src/memory/events.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { HashedNgramEmbeddings, MAX_RANKED_CHARS } from "../../src/memory/ranking/index.js";
import { RECALLED_TEXT_CHARS } from "../../src/memory/recall.js";
import type { EventRecord } from "../../src/memory/records.js";

const SENTENCES = [
  "I ordered the blue running shoes last Tuesday and the parcel still has not arrived.",
  "The mobile app crashes every time I open the settings page on my Android phone.",
  "ฉันสั่งรองเท้าวิ่งสีฟ้าเมื่อวันอังคารที่แล้วแต่ยังไม่ได้รับพัสดุเลยครับ",
  "We are planning a trip to Chiang Mai in December and need a hotel near the old city.",
  "แอปพลิเคชันปิดตัวเองทุกครั้งที่เปิดหน้าการตั้งค่า",
  "The quarterly report needs updated figures for revenue, churn and customer growth.",
];

/** A prompt of just under 32,000 characters: a refund request, then mixed English and Thai sentences. */
function longPrompt(variant: number): string {
  let text = `Please refund order ${4500 + variant}.`;
  for (let i = variant; text.length < 31_800; i += 1) text += ` ${SENTENCES[i % SENTENCES.length] ?? ""}`;
  return text;
}

describe("a turn with a prompt of 32,000 characters (SQLite file, offline models)", () => {
  const scope = { tenantId: "acme", userId: "u-long", sessionId: "s-long" };
  let dir: string;
  let graph: MemoryGraph;

  beforeAll(async () => {
    setLogLevel("silent");
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-long-prompt-"));
    graph = await createMemoryGraph({ backend: "sqlite", sqlitePath: path.join(dir, "memory.db"), chatModel: null, embeddings: new HashedNgramEmbeddings() });
  });

  afterAll(async () => {
    await graph.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("hands Intl.Segmenter less than its ranked part in all: the prompt is tokenised once, and only its Thai", async () => {
    const segment = vi.spyOn(Intl.Segmenter.prototype, "segment");
    try {
      const result = await graph.runTurn({ ...scope, message: longPrompt(1) });
      expect(result.status).toBe("OK");
      const segmented = segment.mock.calls.reduce((sum, [text]) => sum + text.length, 0);
      expect(segmented).toBeGreaterThan(0);
      expect(segmented).toBeLessThan(MAX_RANKED_CHARS);
    } finally {
      segment.mockRestore();
    }
  });

  it("recalls earlier long messages, and keeps events, with bounded texts", async () => {
    await graph.runTurn({ ...scope, message: longPrompt(2) });
    const result = await graph.runTurn({ ...scope, message: longPrompt(3) });
    const recalled = result.memoryContext.recalled;
    const texts = [...(recalled?.recentTurns ?? []), ...(recalled?.similar ?? []), ...(recalled?.events ?? [])].map((item) => item.text);
    expect(texts.some((text) => text.endsWith("…"))).toBe(true);
    for (const text of texts) expect(text.length).toBeLessThanOrEqual(RECALLED_TEXT_CHARS);

    const events = await graph.persistence.store.search(namespaces.events(scope), { limit: 10 });
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) {
      const record = event.value as EventRecord;
      expect(record.text.length).toBeLessThanOrEqual(EVENT_TEXT_CHARS);
      expect(record.text.startsWith("Please refund order")).toBe(true);
    }
    // The caller still gets the whole of its own message back as the turn's event.
    expect(result.event?.text).toBe(longPrompt(3));
  });

  it("lets the event loop run between its nodes", async () => {
    let ticks = 0;
    let running = true;
    const tick = () => {
      ticks += 1;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    await graph.runTurn({ ...scope, message: longPrompt(4) });
    running = false;
    // One chance per step at least (ingest_prompt, recall, call_model beside classify_event, build_candidate).
    expect(ticks).toBeGreaterThanOrEqual(4);
  });
});
