import { InMemoryStore } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { createRecallNode } from "../../../src/graph/nodes/recall.js";
import { saveTranscriptMessage } from "../../../src/memory/transcript.js";
import { saveFacts } from "../../../src/memory/facts.js";
import { saveSummary } from "../../../src/memory/summaries.js";
import { scope, testDeps } from "../../support/deps.js";
import { midTurnState } from "./helpers.js";

describe("recall", () => {
  it("recalls similar past messages from the user's other sessions, facts and summaries", async () => {
    const store = new InMemoryStore();
    const other = { ...scope, sessionId: "older" };
    const at = (m: number) => `2026-10-0${m}T10:00:00.000Z`;
    await saveTranscriptMessage(store, other, { id: "o1", role: "user", text: "The blender I bought makes a grinding noise", parentId: null, sessionId: "older", createdAt: at(1) });
    await saveTranscriptMessage(store, other, { id: "o2", role: "user", text: "What time do you open on Sunday?", parentId: "o1", sessionId: "older", createdAt: at(2) });
    await saveFacts(store, scope, [{ key: "name", value: "Anong" }], { messageId: "o1", sessionId: "older", now: at(1) });
    await saveSummary(store, scope, { id: "sum", text: "- Asked about a noisy blender", sessionId: "older", fromMessageId: "o1", toMessageId: "o2", messageIds: ["o1", "o2"], method: "rules", createdAt: at(3) });
    const state = await midTurnState(store, "Is the blender noise I mentioned covered by warranty?");
    const update = await createRecallNode(testDeps())(state, { store });
    const recalled = update.recalled!;
    expect(recalled.searchedScope).toBe("user");
    expect(recalled.similar[0]?.id).toBe("o1");
    expect(recalled.similar[0]?.ranking.lexical).toBeGreaterThan(0);
    expect(recalled.similar.map((m) => m.id)).not.toContain("h1");
    expect(recalled.facts.map((f) => f.value)).toEqual(["Anong"]);
    expect(recalled.summaries.map((s) => s.id)).toEqual(["sum"]);
    expect(update.memoryText?.text).toContain("blender");
    expect(update.memoryText?.tokens).toBeLessThanOrEqual(2000);
  });

  it("fails clearly when the graph has no store", async () => {
    const state = await midTurnState(new InMemoryStore(), "hello");
    await expect(createRecallNode(testDeps())(state, {})).rejects.toMatchObject({ code: "STORE_MISSING" });
  });
});
