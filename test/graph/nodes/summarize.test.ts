import { InMemoryStore } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { createSummarizeNode } from "../../../src/graph/nodes/summarize.js";
import { namespaces } from "../../../src/memory/namespaces.js";
import { saveTranscriptMessage } from "../../../src/memory/transcript.js";
import type { SummaryRecord } from "../../../src/memory/records.js";
import { EMPTY_SESSION } from "../../../src/graph/state/state.js";
import { scope, stateOf, testDeps } from "../../support/deps.js";
import { FailingChatModel, RecordingChatModel } from "../../support/models.js";

async function storedPairs(store: InMemoryStore, pairs: number) {
  let parent: string | null = null;
  for (let i = 0; i < pairs * 2; i += 1) {
    const id = `m${i}`;
    const role = i % 2 === 0 ? "user" : "assistant";
    await saveTranscriptMessage(store, scope, { id, role, text: role === "user" ? `How much is plan ${i}?` : `Plan ${i} costs ${i * 10} baht.`, parentId: parent, sessionId: scope.sessionId, createdAt: `2026-11-01T10:00:${String(i).padStart(2, "0")}.000Z` });
    parent = id;
  }
  return stateOf({ input: { ...scope, message: "x" }, session: { ...EMPTY_SESSION, lastMessageId: parent, pairsSinceSummary: pairs } });
}

describe("summarize", () => {
  it("stores a model summary with the message range it covers", async () => {
    const store = new InMemoryStore();
    const state = await storedPairs(store, 3);
    const update = await createSummarizeNode(testDeps({ chatModel: new RecordingChatModel(["- asked about plans\n- prices given"]) }))(state, { store });
    const [summary] = (await store.search(namespaces.summaries(scope), { limit: 5 })).map((i) => i.value as SummaryRecord);
    expect(summary).toMatchObject({ method: "model", fromMessageId: "m0", toMessageId: "m5" });
    expect(update.session).toMatchObject({ pairsSinceSummary: 0, summarizedThroughId: "m5" });
  });

  it("falls back to rules when the model fails, removing no message", async () => {
    const store = new InMemoryStore();
    const state = await storedPairs(store, 2);
    const update = await createSummarizeNode(testDeps({ chatModel: new FailingChatModel() }))(state, { store });
    const [summary] = (await store.search(namespaces.summaries(scope), { limit: 5 })).map((i) => i.value as SummaryRecord);
    expect(summary?.method).toBe("rules");
    expect(summary?.text.length).toBeGreaterThan(10);
    expect(update.errors).toEqual([expect.objectContaining({ code: "SUMMARY_FALLBACK" })]);
    expect(await store.search(namespaces.transcript(scope), { limit: 10 })).toHaveLength(4);
  });

  it("only summarizes what came after the last summary", async () => {
    const store = new InMemoryStore();
    const state = await storedPairs(store, 3);
    await createSummarizeNode(testDeps())({ ...state, session: { ...state.session, summarizedThroughId: "m3" } }, { store });
    const [summary] = (await store.search(namespaces.summaries(scope), { limit: 5 })).map((i) => i.value as SummaryRecord);
    expect(summary?.messageIds).toEqual(["m4", "m5"]);
  });
});
