import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createMemoryGraph } from "../../src/app/create-memory-graph.js";
import { collectGarbage } from "../../src/memory/gc.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { NODE } from "../../src/graph/state/node-names.js";
import { memoryGraphForTest, scope } from "../support/deps.js";
import { GatedChatModel, SlowChatModel } from "../support/models.js";

/** A chat model that streams its reply in pieces and reports token usage, as providers do. */
class MeteredModel extends FakeListChatModel {
  override async _generate(messages: BaseMessage[], options?: this["ParsedCallOptions"]): Promise<ChatResult> {
    const result = await super._generate(messages, options);
    for (const generation of result.generations) {
      (generation.message as { usage_metadata?: unknown }).usage_metadata = { input_tokens: 11, output_tokens: 3, total_tokens: 14 };
    }
    return result;
  }
}

/** Embeddings that log each call with the time it was made. */
class ClockedEmbeddings implements EmbeddingsInterface {
  readonly calls: { at: number; kind: "documents" | "query"; count: number; texts: string[] }[] = [];
  async embedDocuments(texts: string[]): Promise<number[][]> {
    this.calls.push({ at: performance.now(), kind: "documents", count: texts.length, texts });
    return texts.map(() => [1, 0, 0]);
  }
  async embedQuery(text: string): Promise<number[]> {
    this.calls.push({ at: performance.now(), kind: "query", count: 1, texts: [text] });
    return [1, 0, 0];
  }
}

describe("only what the reply needs stands before call_model", () => {
  it("a classifier still thinking holds up neither the reply's tokens nor the result; the next turn starts with what it found", async () => {
    // The classifier answers only when released, after the result is in hand (or, as a way out
    // should the result wait for it, after 5 s): who released it tells which came first.
    const classifier = new GatedChatModel(['{"type":"INFORMATION","importance":0.9,"intent":"share_family","entities":["person:Priya","place:Pune"]}']);
    const { graph, store } = await memoryGraphForTest({ chatModel: new FakeListChatModel({ responses: ["Noted."] }), classifierModel: classifier });
    let releasedBy: "result" | "way out" | undefined;
    const wayOut = setTimeout(() => {
      releasedBy ??= "way out";
      classifier.release();
    }, 5_000);
    let tokens = 0;
    const turn = { ...scope, message: "My sister Priya moved to Pune", messageId: "m-priya" };
    const result = await graph.streamTurn(turn, () => (tokens += 1));
    releasedBy ??= "result";
    classifier.release();
    clearTimeout(wayOut);
    expect(result.status).toBe("OK");
    expect(tokens).toBeGreaterThan(0);
    expect(releasedBy).toBe("result");
    expect(result.event).toBeNull();
    expect(classifier.answered).toBe(0);
    // The next turn of the session waits for the classification (one writer per thread), and only for it.
    const next = await graph.runTurn({ ...scope, message: "Usko 500 add karo" });
    expect(next.status).toBe("OK");
    expect(classifier.answered).toBeGreaterThanOrEqual(1);
    const state = await graph.sessionState(scope);
    expect(state?.session.activeEntities).toEqual(expect.arrayContaining([expect.objectContaining({ value: "Priya" })]));
    expect(await store.search(namespaces.events(scope))).not.toHaveLength(0);
    // The stored result of the first turn (what a retry replays) has its classification.
    expect((await graph.runTurn(turn)).event).toMatchObject({ type: "INFORMATION", classifiedBy: "model" });
    await graph.close();
  });

  it("recall leads to both call_model and classify_event, which are joined before build_candidate", async () => {
    const { graph } = await memoryGraphForTest({ chatModel: null });
    const { edges } = await graph.app.getGraphAsync();
    expect(edges.filter((edge) => edge.source === NODE.recall).map((edge) => edge.target).sort()).toEqual([NODE.callModel, NODE.classifyEvent].sort());
    expect(edges.filter((edge) => edge.target === NODE.buildCandidate).map((edge) => edge.source).sort()).toEqual([NODE.callModel, NODE.classifyEvent].sort());
  });
});

describe("no reply waits for a summary", () => {
  it("the summary is made off the session's lock: the next turn does not wait for it", async () => {
    // The summary model answers only when released, after the third turn's result is in hand.
    const summaryModel = new GatedChatModel(["- the user counted to two"]);
    const { graph, store } = await memoryGraphForTest({ chatModel: new FakeListChatModel({ responses: ["Noted."] }), classifierModel: null, summaryModel, limits: { summaryInterval: 2 } });
    await graph.runTurn({ ...scope, message: "one" });
    const second = await graph.runTurn({ ...scope, message: "two" });
    expect(second.status).toBe("OK");
    const third = await graph.runTurn({ ...scope, message: "three" });
    expect(third.status).toBe("OK");
    expect(summaryModel.answered).toBe(0);
    expect(await store.search(namespaces.summaries(scope))).toHaveLength(0);
    summaryModel.release();
    await graph.settled();
    const summaries = await store.search(namespaces.summaries(scope));
    expect(summaries).toHaveLength(1);
    // It covers the two pairs it was started for, not the third, which still counts towards the next.
    expect((summaries[0]?.value as { messageIds: string[] }).messageIds).toHaveLength(4);
    const state = await graph.sessionState(scope);
    expect(state?.session).toMatchObject({ pairsSinceSummary: 1, summarizedThroughId: second.messageIds.assistant });
    expect(summaryModel.calls).toBe(1);
    await graph.close();
  });

  it("a summary never made (the process stopped after the reply) stays due and the next turn makes it", async () => {
    const { graph, store } = await memoryGraphForTest({ chatModel: null, limits: { summaryInterval: 2 } });
    await graph.runTurn({ ...scope, message: "one" });
    // What a process that dies after the reply leaves: the turn checkpointed at build_candidate, no summary.
    await graph.app.invoke({ ...scope, message: "two" }, { configurable: { thread_id: `${scope.tenantId}/${scope.userId}/${scope.sessionId}` }, durability: "exit" });
    const stopped = await graph.app.getState({ configurable: { thread_id: `${scope.tenantId}/${scope.userId}/${scope.sessionId}` } });
    expect(stopped.next).toEqual([NODE.summarize]);
    expect(await store.search(namespaces.summaries(scope))).toHaveLength(0);
    await graph.runTurn({ ...scope, message: "three" });
    await graph.settled();
    const summaries = await store.search(namespaces.summaries(scope));
    expect(summaries).toHaveLength(1);
    expect((summaries[0]?.value as { messageIds: string[] }).messageIds).toHaveLength(6);
  });
});

describe("garbage collection makes a summary left due", () => {
  it("before the idle session's window goes, and only once", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-gc-upkeep-"));
    let now = new Date("2026-11-01T10:00:00.000Z");
    const graph = await createMemoryGraph({ sqlitePath: path.join(dir, "m.db"), chatModel: null, limits: { summaryInterval: 2 }, now: () => now, logger: false });
    const config = { configurable: { thread_id: `${scope.tenantId}/${scope.userId}/${scope.sessionId}` }, durability: "exit" as const };
    await graph.runTurn({ ...scope, message: "one" });
    // What a process that dies after the reply leaves: the turn checkpointed at build_candidate, no summary.
    await graph.app.invoke({ ...scope, message: "two" }, config);
    expect((await graph.app.getState(config)).next).toEqual([NODE.summarize]);
    now = new Date(now.getTime() + 3600_000); // past the session TTL: gc expires the window
    const gc = graph.persistence.gc;
    if (!gc) throw new Error("sqlite has a gc target");
    const counts = await collectGarbage(gc, { now, upkeep: graph.finishUpkeep });
    expect(counts).toMatchObject({ summaries_made: 1, sessions_expired: 1 });
    const summaries = await graph.persistence.store.search(namespaces.summaries(scope));
    expect(summaries).toHaveLength(1);
    expect((summaries[0]?.value as { messageIds: string[] }).messageIds).toHaveLength(4);
    expect(await collectGarbage(gc, { now, upkeep: graph.finishUpkeep })).toMatchObject({ summaries_made: 0 });
    expect(await graph.finishUpkeep("no/such/thread")).toBe(false);
    await graph.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe("the cost of a turn", () => {
  it("records the tokens of each model call (the provider's usage) and returns them with the turn", async () => {
    const { graph } = await memoryGraphForTest({ chatModel: new MeteredModel({ responses: ["Hi"] }), classifierModel: null });
    const result = await graph.runTurn({ ...scope, message: "hello" });
    expect(result.usage).toEqual({ inputTokens: 11, outputTokens: 3, totalTokens: 14, calls: [{ node: NODE.callModel, inputTokens: 11, outputTokens: 3 }] });
    const next = await graph.runTurn({ ...scope, message: "again" });
    expect(next.usage.calls, JSON.stringify(next.usage)).toHaveLength(1); // per turn, not accumulated over the session
  });

  it("makes at most one embedding call before the reply, the new message's, whose vector is stored with it (computed once)", async () => {
    const embeddings = new ClockedEmbeddings();
    let replyAt = 0;
    const model = new (class extends FakeListChatModel {
      override async _generate(messages: BaseMessage[], options?: this["ParsedCallOptions"]): Promise<ChatResult> {
        replyAt = performance.now();
        return super._generate(messages, options);
      }
    })({ responses: ["first reply", "second reply", "third reply"] });
    // A slow classifier: its event (written beside call_model) is embedded after the reply.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-embed-"));
    const graph = await createMemoryGraph({ backend: "sqlite", sqlitePath: path.join(dir, "m.db"), chatModel: model, classifierModel: new SlowChatModel(300, ["not json"]), summaryModel: null, embeddings, logger: false });
    await graph.runTurn({ ...scope, message: "first message" });
    embeddings.calls.length = 0;
    // A message about the user: recall searches similar messages, so it needs the message's vector.
    await graph.runTurn({ ...scope, message: "my second message" });
    await graph.settled();
    const calls = JSON.stringify(embeddings.calls.map((c) => [c.kind, c.texts, Math.round(c.at - replyAt)]));
    const before = embeddings.calls.filter((call) => call.at < replyAt);
    expect(before.length, calls).toBe(1);
    expect(before[0]?.texts, calls).toEqual([expect.stringMatching(/^my second message\n/)]);
    // The message was stored (indexed with the reply) and its event saved, yet embedded only once.
    const embeddedTexts = embeddings.calls.flatMap((call) => call.texts);
    expect(embeddedTexts.filter((text) => text.startsWith("my second message")), calls).toHaveLength(1);
    expect(embeddings.calls.some((call) => call.texts.some((text) => text.startsWith("second reply")) && call.at >= replyAt), calls).toBe(true);
    const result = await graph.runTurn({ ...scope, message: "my third message" });
    expect(result.memoryContext.recalled?.vectorSearch).toBe("used");
    await graph.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe("a slow embeddings provider never holds up the reply", () => {
  /**
   * Embeddings that answer at once until `hold()`; from then on, once `release()` is called or
   * after 5 s as a way out. They record the texts of each call and who released them.
   */
  class GatedEmbeddings implements EmbeddingsInterface {
    readonly texts: string[] = [];
    releasedBy: "first token" | "way out" | undefined;
    private gate: Promise<void> | undefined;
    private open = () => undefined as void;
    private wayOut: NodeJS.Timeout | undefined;
    hold(): void {
      this.gate = new Promise<void>((resolve) => (this.open = resolve));
      this.wayOut = setTimeout(() => this.release("way out"), 5_000);
    }
    release(by: "first token" | "way out"): void {
      this.releasedBy ??= by;
      clearTimeout(this.wayOut);
      this.open();
    }
    async embedDocuments(texts: string[]): Promise<number[][]> {
      this.texts.push(...texts);
      await this.gate;
      return texts.map((text) => [1, text.length % 7, 0.5]);
    }
    async embedQuery(text: string): Promise<number[]> {
      return (await this.embedDocuments([text]))[0] ?? [];
    }
  }

  it("recall goes on lexically when the message's vector is late, and the vector is stored with the message, computed once", async () => {
    // From the second turn on, the provider answers nothing until the reply's first token is out.
    const embeddings = new GatedEmbeddings();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-late-"));
    const file = path.join(dir, "m.db");
    const lines: string[] = [];
    const logger = { debug: () => undefined, info: (_: unknown, event: string) => lines.push(event), warn: () => undefined, error: () => undefined };
    const graph = await createMemoryGraph({
      backend: "sqlite",
      sqlitePath: file,
      chatModel: new FakeListChatModel({ responses: ["first reply", "second reply"] }),
      classifierModel: null,
      summaryModel: null,
      embeddings,
      limits: { recall: { vectorWaitMs: 20 } },
      logger,
    });
    await graph.runTurn({ ...scope, sessionId: "earlier", message: "my parcel to Chiang Mai" });
    await graph.settled();
    embeddings.hold();
    const result = await graph.streamTurn({ ...scope, message: "where is my parcel" }, () => embeddings.release("first token"));
    await graph.settled();
    expect(result.status).toBe("OK");
    expect(result.memoryContext.recalled?.vectorSearch).toBe("late");
    expect(lines).toContain("recall_vector_late");
    // Ranked lexically all the same: the earlier message is found.
    expect(result.memoryContext.recalled?.similar.map((m) => m.text)).toContain("my parcel to Chiang Mai");
    expect(embeddings.releasedBy).toBe("first token");
    expect(embeddings.texts.filter((text) => text.startsWith("where is my parcel")), JSON.stringify(embeddings.texts)).toHaveLength(1);
    await graph.close();
    const db = new Database(file, { readonly: true });
    // The message is stored with its vector (its event, kept under the message's id, is not indexed).
    const stored = db
      .prepare("SELECT i.namespace AS namespace FROM store_vectors v JOIN store_items i ON i.id = v.item_id WHERE i.key = ?")
      .all(result.messageIds.user ?? "") as { namespace: string }[];
    db.close();
    expect(stored).toHaveLength(1);
    expect(stored[0]?.namespace).toContain("messages");
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
