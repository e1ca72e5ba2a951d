import { InMemoryStore, type PutOperation } from "@langchain/langgraph";
import { describe, expect, it, vi } from "vitest";
import { createCallModelNode } from "../../../src/graph/nodes/call-model.js";
import { namespaces } from "../../../src/memory/namespaces.js";
import { textOf } from "../../../src/messages/message-meta.js";
import { scope, testDeps } from "../../support/deps.js";
import { FailingChatModel, RecordingChatModel } from "../../support/models.js";
import { midTurnState } from "./helpers.js";
import { HashedNgramEmbeddings } from "../../../src/memory/ranking/hash-embedder.js";

describe("call_model", () => {
  it("sends the prompt in the fixed order and stores the reply in the window, node memory and transcript", async () => {
    const store = new InMemoryStore();
    const model = new RecordingChatModel(["Sure."]);
    const state = await midTurnState(store, "Can you help?", {
      memoryText: { text: "## What we know about the user\n- name: Anong", tokens: 10, sections: {}, droppedForBudget: 0 },
    });
    const update = await createCallModelNode(testDeps({ chatModel: model, systemPrompt: "SYSTEM" }))(state, { store });
    const prompt = model.prompts[0] ?? [];
    expect(prompt.map((m) => m.getType())).toEqual(["system", "system", "human"]);
    expect(textOf(prompt[0]!)).toBe("SYSTEM");
    expect(textOf(prompt[1]!)).toContain("Anong");
    expect(textOf(prompt[2]!)).toBe("Can you help?");
    expect((update.messages as unknown[]).length).toBe(1);
    expect(update.turn?.model).toBe("fake");
    expect(update.nodeMessages?.call_model).toHaveLength(2);
    const stored = await store.get(namespaces.transcript(scope), update.turn!.replyId!);
    expect(stored?.value).toMatchObject({ role: "assistant", text: "Sure.", parentId: "h1" });
  });

  it("answers offline, saying so, when no model is configured", async () => {
    const store = new InMemoryStore();
    const update = await createCallModelNode(testDeps())(await midTurnState(store, "hello"), { store });
    expect(update.turn?.model).toBe("offline");
    expect(textOf((update.messages as never[])[0]!)).toMatch(/no (language )?model/i);
  });

  it("records a model error as status ERROR, retrying first, and keeps the user's message", async () => {
    const store = new InMemoryStore();
    const model = new FailingChatModel(Object.assign(new Error("upstream 503"), { status: 503 }));
    const update = await createCallModelNode(testDeps({ chatModel: model }))(await midTurnState(store, "hello"), { store });
    expect(model.calls).toBe(2);
    expect(update.status).toBe("ERROR");
    expect(update.errors).toEqual([expect.objectContaining({ node: "call_model", code: "MODEL_ERROR" })]);
    expect(update.messages).toBeUndefined();
    expect(await store.get(namespaces.transcript(scope), "h1")).not.toBeNull();
  });

  it("with embeddings, stores the turn's new user message once, indexed, before the reply; an incognito turn stores neither", async () => {
    const store = new InMemoryStore();
    const state = await midTurnState(new InMemoryStore(), "Where is my order 1005?");
    // Every write of an InMemoryStore, `put` included, is a `batch` of put operations.
    const batches = vi.spyOn(store, "batch");
    const deps = testDeps({ chatModel: new RecordingChatModel(["On its way."]), embeddings: new HashedNgramEmbeddings() });
    const update = await createCallModelNode(deps)(state, { store });
    const keys = batches.mock.calls
      .flatMap(([operations]) => operations.filter((op) => "value" in op && op.namespace.join("/") === namespaces.transcript(scope).join("/")))
      .map((op) => [(op as PutOperation).key, (op as PutOperation).index]);
    expect(keys).toEqual([
      ["h1", undefined],
      [update.turn!.replyId!, undefined],
    ]);
    expect((await store.get(namespaces.transcript(scope), "h1"))?.value).toMatchObject({ role: "user", text: "Where is my order 1005?" });
    const quiet = new InMemoryStore();
    const incognito = { ...state, input: { ...state.input!, remember: false } };
    await createCallModelNode({ ...deps, chatModel: new RecordingChatModel(["Fine."]) })(incognito, { store: quiet });
    expect(await quiet.search(namespaces.transcript(scope), { limit: 5 })).toEqual([]);
  });
});
