import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createMemoryGraph } from "../../src/app/create-memory-graph.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { NODE } from "../../src/state/node-names.js";
import { memoryGraphForTest, scope } from "../support/deps.js";
import { SlowChatModel } from "../support/models.js";

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
  readonly calls: { at: number; kind: "documents" | "query"; count: number }[] = [];
  async embedDocuments(texts: string[]): Promise<number[][]> {
    this.calls.push({ at: performance.now(), kind: "documents", count: texts.length });
    return texts.map(() => [1, 0, 0]);
  }
  async embedQuery(): Promise<number[]> {
    this.calls.push({ at: performance.now(), kind: "query", count: 1 });
    return [1, 0, 0];
  }
}

describe("only what the reply needs stands before call_model", () => {
  it("classify_event and call_model run in the same step: a slow classifier does not delay the reply's first token", async () => {
    const classifier = new SlowChatModel(600, ["not json"]);
    const { graph } = await memoryGraphForTest({ chatModel: new FakeListChatModel({ responses: ["Hello there"] }), classifierModel: classifier });
    const started = performance.now();
    let firstToken = 0;
    const result = await graph.streamTurn({ ...scope, message: "hi" }, () => (firstToken ||= performance.now() - started));
    const total = performance.now() - started;
    expect(result.status).toBe("OK");
    expect(classifier.calls).toBeGreaterThan(0);
    expect(firstToken).toBeGreaterThan(0);
    expect(firstToken).toBeLessThan(400); // the classifier alone takes 600 ms
    expect(total).toBeGreaterThanOrEqual(590); // the result waits for the join before build_candidate
  });

  it("recall leads to both call_model and classify_event, which are joined before build_candidate", async () => {
    const { graph } = await memoryGraphForTest({ chatModel: null });
    const { edges } = await graph.app.getGraphAsync();
    expect(edges.filter((edge) => edge.source === NODE.recall).map((edge) => edge.target).sort()).toEqual([NODE.callModel, NODE.classifyEvent].sort());
    expect(edges.filter((edge) => edge.target === NODE.buildCandidate).map((edge) => edge.source).sort()).toEqual([NODE.callModel, NODE.classifyEvent].sort());
  });
});

describe("no reply waits for a summary", () => {
  it("the result comes back before the due summary is made, which follows under the turn lock", async () => {
    const summaryModel = new SlowChatModel(500, ["- the user asked ten questions"]);
    const { graph, store } = await memoryGraphForTest({ chatModel: new FakeListChatModel({ responses: ["Noted."] }), classifierModel: null, summaryModel, limits: { summaryInterval: 2 } });
    await graph.runTurn({ ...scope, message: "one" });
    const started = performance.now();
    const second = await graph.runTurn({ ...scope, message: "two" });
    const replyMs = performance.now() - started;
    expect(second.status).toBe("OK");
    expect(replyMs).toBeLessThan(400);
    expect(await store.search(namespaces.summaries(scope))).toHaveLength(0);
    // The next turn of the session waits for the summary (one writer per thread), then sees it.
    const third = await graph.runTurn({ ...scope, message: "three" });
    expect(third.status).toBe("OK");
    expect(await store.search(namespaces.summaries(scope))).toHaveLength(1);
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

describe("the cost of a turn", () => {
  it("records the tokens of each model call (the provider's usage) and returns them with the turn", async () => {
    const { graph } = await memoryGraphForTest({ chatModel: new MeteredModel({ responses: ["Hi"] }), classifierModel: null });
    const result = await graph.runTurn({ ...scope, message: "hello" });
    expect(result.usage).toEqual({ inputTokens: 11, outputTokens: 3, totalTokens: 14, calls: [{ node: NODE.callModel, inputTokens: 11, outputTokens: 3 }] });
    const next = await graph.runTurn({ ...scope, message: "again" });
    expect(next.usage.calls, JSON.stringify(next.usage)).toHaveLength(1); // per turn, not accumulated over the session
  });

  it("makes at most one embedding call before the reply: the user's message is indexed with the reply, in one batch", async () => {
    const embeddings = new ClockedEmbeddings();
    let replyAt = 0;
    const model = new (class extends FakeListChatModel {
      override async _generate(messages: BaseMessage[], options?: this["ParsedCallOptions"]): Promise<ChatResult> {
        replyAt = performance.now();
        return super._generate(messages, options);
      }
    })({ responses: ["ok"] });
    // A slow classifier: its event (written beside call_model) is embedded after the reply.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-embed-"));
    const graph = await createMemoryGraph({ backend: "sqlite", sqlitePath: path.join(dir, "m.db"), chatModel: model, classifierModel: new SlowChatModel(300, ["not json"]), summaryModel: null, embeddings, logger: false });
    await graph.runTurn({ ...scope, message: "first message" });
    embeddings.calls.length = 0;
    await graph.runTurn({ ...scope, message: "second message" });
    const before = embeddings.calls.filter((call) => call.at < replyAt);
    expect(before.length, JSON.stringify(embeddings.calls.map((c) => [c.kind, c.count, Math.round(c.at - replyAt)]))).toBeLessThanOrEqual(1);
    expect(before.every((call) => call.kind === "query")).toBe(true);
    expect(embeddings.calls.some((call) => call.kind === "documents" && call.count >= 2 && call.at >= replyAt)).toBe(true);
    await graph.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
