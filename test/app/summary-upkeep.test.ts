import { FakeListChatModel } from "@langchain/core/utils/testing";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryGraph, type MemoryGraph } from "../../src/app/create-memory-graph.js";
import { namespaces } from "../../src/memory/namespaces.js";
import type { SummaryRecord, TranscriptRecord } from "../../src/memory/records.js";
import { scope } from "../support/deps.js";
import { SlowChatModel } from "../support/models.js";

const dirs: string[] = [];
const graphs: MemoryGraph[] = [];

afterEach(async () => {
  for (const graph of graphs.splice(0)) await graph.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A memory graph on `file` whose summaries take `summaryMs` to write (one every two pairs). */
async function open(file: string, summaryMs: number): Promise<MemoryGraph> {
  const graph = await createMemoryGraph({
    sqlitePath: file,
    chatModel: new FakeListChatModel({ responses: ["Noted."] }),
    classifierModel: null,
    summaryModel: new SlowChatModel(summaryMs, ["- what was said"]),
    limits: { summaryInterval: 2 },
    logger: false,
  });
  graphs.push(graph);
  return graph;
}

function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-summary-upkeep-"));
  dirs.push(dir);
  return path.join(dir, "memory.db");
}

/**
 * Every message of the session is covered by exactly one summary, or is newer than the last one
 * (counted by `pairsSinceSummary`): none lost, none summarized twice.
 */
async function expectEachMessageSummarizedOnce(graph: MemoryGraph): Promise<number> {
  const store = graph.persistence.store;
  const summaries = (await store.search(namespaces.summaries(scope), { limit: 100 })).map((item) => item.value as SummaryRecord);
  const messages = (await store.search(namespaces.transcript(scope), { limit: 1000 })).map((item) => item.value as TranscriptRecord);
  const covered = summaries.flatMap((summary) => summary.messageIds);
  expect(new Set(covered).size, "a message summarized twice").toBe(covered.length);
  const state = await graph.sessionState(scope);
  const pending = (state?.session.pairsSinceSummary ?? 0) * 2;
  expect(covered.length + pending, "a message neither summarized nor pending").toBe(messages.length);
  const last = summaries.find((summary) => summary.toMessageId === state?.session.summarizedThroughId);
  expect(last, "the session's last summary is stored").toBeDefined();
  return summaries.length;
}

describe("summaries made off the session's lock", () => {
  it("under turns that keep coming, back to back and at once, no summary is lost or made twice", async () => {
    const graph = await open(tempFile(), 60);
    for (let i = 0; i < 9; i += 1) expect((await graph.runTurn({ ...scope, message: `message ${i}` })).status).toBe("OK");
    const together = await Promise.all(Array.from({ length: 5 }, (_, i) => graph.runTurn({ ...scope, message: `together ${i}` })));
    expect(together.map((result) => result.status)).toEqual(Array(5).fill("OK"));
    await graph.settled();
    // 14 pairs, summaries every 2 while each takes longer than a turn: fewer than 7, each covering more.
    expect(await expectEachMessageSummarizedOnce(graph)).toBeGreaterThanOrEqual(2);
  });

  it("two processes on one database: the summary one commits is not made again by the other", async () => {
    const file = tempFile();
    const first = await open(file, 80);
    const second = await open(file, 80);
    for (let i = 0; i < 12; i += 1) {
      const graph = i % 2 === 0 ? first : second;
      expect((await graph.runTurn({ ...scope, message: `message ${i}` })).status).toBe("OK");
    }
    await Promise.all([first.settled(), second.settled()]);
    expect(await expectEachMessageSummarizedOnce(first)).toBeGreaterThanOrEqual(1);
  });
});
