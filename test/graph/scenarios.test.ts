import { describe, expect, it } from "vitest";
import { namespaces } from "../../src/memory/namespaces.js";
import type { EventRecord, FactRecord, SummaryRecord, TranscriptRecord } from "../../src/memory/records.js";
import { metaOf, textOf } from "../../src/messages/message-meta.js";
import { NODE } from "../../src/graph/state/node-names.js";
import { manualClock, memoryGraphForTest, scope } from "../support/deps.js";
import { FailingChatModel, RecordingChatModel } from "../support/models.js";

const values = async <T>(store: { search: (ns: string[], o: { limit: number }) => Promise<{ value: unknown }[]> }, ns: string[]) =>
  (await store.search(ns, { limit: 1000 })).map((item) => item.value as T);

describe("memory graph scenarios (MemorySaver + InMemoryStore)", () => {
  it("resolves a romanised-Hindi follow-up to the entity of the turn before", async () => {
    const { graph } = await memoryGraphForTest();
    const first = await graph.runTurn({ ...scope, message: "Bharat ka balance kitna hai?" });
    expect(first.event?.type).toBe("INQUIRY");
    const second = await graph.runTurn({ ...scope, message: "Usko 500 add karo" });
    expect(second.status).toBe("OK");
    expect(second.event?.type).toBe("TRANSACTION");
    expect(second.event?.entities).toContainEqual({ type: "person", value: "Bharat" });
    expect(second.event?.payload).toMatchObject({ amount: 500 });
    await graph.close();
  });

  it("classifies a Thai pricing question as an INQUIRY in Thai and keeps it in long-term memory", async () => {
    const { graph, store } = await memoryGraphForTest();
    const result = await graph.runTurn({ ...scope, message: "ราคาสินค้านี้เท่าไหร่" });
    expect(result.event).toMatchObject({ type: "INQUIRY", language: "th", saved: true });
    const events = await values<EventRecord>(store, namespaces.events(scope));
    expect(events.map((e) => e.text)).toEqual(["ราคาสินค้านี้เท่าไหร่"]);
    await graph.close();
  });

  it("rebuilds a session idle past its TTL from long-term memory, deleting nothing", async () => {
    const clock = manualClock();
    const { graph, store } = await memoryGraphForTest({ now: clock.now, limits: { sessionTtlSeconds: 60 } });
    await graph.runTurn({ ...scope, message: "My name is Somchai and my phone number is 081-234-5678" });
    await graph.runTurn({ ...scope, message: "I want a refund, the blender arrived broken" });
    clock.advance(61_000);
    const after = await graph.runTurn({ ...scope, message: "Any news?" });
    expect(after.status).toBe("OK");
    const state = await graph.sessionState(scope);
    const window = state?.messages ?? [];
    expect(window.map((m) => m.getType())).toEqual(["system", "human", "ai"]);
    expect(textOf(window[1]!)).toBe("Any news?");
    const seed = window[0];
    expect(seed?.getType()).toBe("system");
    // The seed carries the facts by reference (their values are read at each turn's prompt).
    expect(metaOf(seed!).carried?.factKeys.length).toBeGreaterThan(0);
    expect(textOf(seed!)).not.toContain("Somchai");
    expect(state?.session.windowsRebuilt).toBe(1);
    const transcript = await values<TranscriptRecord>(store, namespaces.transcript(scope));
    expect(transcript).toHaveLength(6);
    const events = await values<EventRecord>(store, namespaces.events(scope));
    expect(events.some((e) => e.text.includes("blender"))).toBe(true);
    await graph.close();
  });

  it("falls back to a rule-based summary after ten pairs when the summary model always throws, losing nothing", async () => {
    const summaryModel = new FailingChatModel();
    const { graph, store } = await memoryGraphForTest({ chatModel: new RecordingChatModel(["Noted."]), classifierModel: null, summaryModel });
    const results = [];
    for (let i = 1; i <= 10; i += 1) results.push(await graph.runTurn({ ...scope, message: `Question ${i}: what is the price of item ${i}?` }));
    expect(results.every((r) => r.status === "OK")).toBe(true);
    // The summary is made after the tenth reply, the session still locked.
    await graph.settled();
    expect(summaryModel.calls).toBeGreaterThan(0);
    expect((await graph.sessionState(scope))?.errors.map((e) => e.code)).toContain("SUMMARY_FALLBACK");
    const summaries = await values<SummaryRecord>(store, namespaces.summaries(scope));
    expect(summaries).toHaveLength(1);
    expect(summaries[0]?.method).toBe("rules");
    const transcript = await values<TranscriptRecord>(store, namespaces.transcript(scope));
    expect(transcript).toHaveLength(20);
    expect(new Set(summaries[0]?.messageIds)).toEqual(new Set(transcript.map((m) => m.id)));
    const state = await graph.sessionState(scope);
    expect(state?.messages).toHaveLength(20);
    await graph.close();
  });

  it("regenerates: A, A', B, B', then a new answer to A; the next turn sees [A, A'', C]", async () => {
    const model = new RecordingChatModel(["A1", "B1", "A2", "C1"]);
    const { graph } = await memoryGraphForTest({ chatModel: model, classifierModel: null });
    const a = await graph.runTurn({ ...scope, message: "A" });
    await graph.runTurn({ ...scope, message: "B" });
    const regenerated = await graph.runTurn({ ...scope, parentMessageId: a.messageIds.user! });
    expect(regenerated.candidate?.text).toBe("A2");
    await graph.runTurn({ ...scope, message: "C" });
    const lastPrompt = model.prompts.at(-1) ?? [];
    const conversation = lastPrompt.filter((m) => m.getType() !== "system").map(textOf);
    expect(conversation).toEqual(["A", "A2", "C"]);
    const state = await graph.sessionState(scope);
    expect(state?.messages.map(textOf)).toEqual(["A", "A2", "C", "C1"]);
    await graph.close();
  });

  it("in node mode, call_model's history holds nothing of classify_event's", async () => {
    const model = new RecordingChatModel(["one", "two"]);
    const { graph } = await memoryGraphForTest({ chatModel: model, classifierModel: null, memoryMode: "node" });
    await graph.runTurn({ ...scope, message: "I need help with my order" });
    await graph.runTurn({ ...scope, message: "It still has not arrived" });
    const state = await graph.sessionState(scope);
    const own = state?.nodeMessages[NODE.callModel] ?? [];
    const classifier = state?.nodeMessages[NODE.classifyEvent] ?? [];
    expect(own.map(textOf)).toEqual(["I need help with my order", "one", "It still has not arrived", "two"]);
    expect(classifier.some((m) => textOf(m).includes('"type"'))).toBe(true);
    expect(own.some((m) => (m.id ?? "").includes("#"))).toBe(false);
    const sent = (model.prompts.at(-1) ?? []).map(textOf).join("\n");
    expect(sent).not.toContain('"importance"');
    await graph.close();
  });

  it("keeps two tenants with the same user id apart", async () => {
    const { graph, store } = await memoryGraphForTest();
    await graph.runTurn({ tenantId: "alpha", userId: "same", sessionId: "s", message: "My phone number is 0812345678, remember my order 7731" });
    const other = await graph.runTurn({ tenantId: "beta", userId: "same", sessionId: "s", message: "What is my phone number and my order 7731?" });
    const recalled = other.memoryContext.recalled;
    expect(recalled?.facts).toEqual([]);
    expect(recalled?.similar).toEqual([]);
    expect(recalled?.recentTurns).toEqual([]);
    expect(other.memoryContext.text).not.toContain("0812345678");
    // Beta's own question names its order (a fact of beta's own); alpha's phone never reaches beta.
    const betaFacts = await values<FactRecord>(store, namespaces.facts({ tenantId: "beta", userId: "same" }));
    expect(betaFacts.map((f) => [f.key, f.value])).toEqual([["order_number", "7731"]]);
    const alphaFacts = await values<FactRecord>(store, namespaces.facts({ tenantId: "alpha", userId: "same" }));
    expect(alphaFacts.map((f) => f.value)).toContain("0812345678");
    await graph.close();
  });

  it("keeps the error list bounded in a long session, each turn reporting only its own", async () => {
    const { graph } = await memoryGraphForTest({ classifierModel: new FailingChatModel() });
    let last;
    for (let i = 0; i < 110; i += 1) last = await graph.runTurn({ ...scope, message: `message ${i}`, messageId: `m-${i}` });
    expect(last?.errors.filter((error) => error.node !== "classify_event")).toEqual([]);
    // The result does not wait for the classification; the stored result (a retry's replay) has its fallback.
    await graph.settled();
    const replay = await graph.runTurn({ ...scope, message: "message 109", messageId: "m-109" });
    expect(replay.replayed).toBe(true);
    expect(replay.errors).toEqual([expect.objectContaining({ node: "classify_event", code: "CLASSIFIER_FALLBACK" })]);
    const state = await graph.sessionState(scope);
    expect(state?.errors).toHaveLength(100);
    await graph.close();
  }, 60_000);

  it.each(["", "   ", "\n\t "])("answers SKIP to the empty prompt %j and stores nothing", async (message) => {
    const { graph, store } = await memoryGraphForTest();
    const result = await graph.runTurn({ ...scope, message });
    expect(result.status).toBe("SKIP");
    expect(result.candidate).toBeNull();
    expect(await store.search([scope.tenantId], { limit: 10 })).toEqual([]);
    expect(await graph.sessionState(scope)).toBeNull();
    await graph.close();
  });
});
