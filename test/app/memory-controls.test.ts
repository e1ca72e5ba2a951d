import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SearchOperation } from "@langchain/langgraph";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryGraph, type MemoryGraph } from "../../src/app/create-memory-graph.js";
import { textOf } from "../../src/messages/message-meta.js";
import { memoryGraphForTest, scope } from "../support/deps.js";
import { RecordingChatModel } from "../support/models.js";

/** The per-turn memory switches through the library: useMemory, topK, memorySections, remember. */

const dirs: string[] = [];
const graphs: MemoryGraph[] = [];
afterEach(async () => {
  await Promise.all(graphs.splice(0).map((graph) => graph.close()));
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

async function sqliteGraph(chatModel: RecordingChatModel | null = null) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-controls-"));
  dirs.push(dir);
  const graph = await createMemoryGraph({ backend: "sqlite", sqlitePath: path.join(dir, "m.db"), chatModel, classifierModel: null, summaryModel: null, logger: false });
  graphs.push(graph);
  return graph;
}

/** The texts of a prompt's system messages, and of the messages between the system prompt and the new message. */
function promptParts(prompt: readonly { getType(): string }[]) {
  const texts = prompt.map((m) => ({ type: m.getType(), text: textOf(m as never) }));
  return { memory: texts.filter((m) => m.type === "system" && m.text.startsWith("Memory of this user")), history: texts.slice(1, -1).filter((m) => m.type !== "system") };
}

describe("useMemory", () => {
  it("false: no recall, no memory block and no history in the prompt; the turn is still stored", async () => {
    const model = new RecordingChatModel(["Noted.", "Hello!", "Hi again."]);
    const graph = await sqliteGraph(model);
    await graph.runTurn({ ...scope, message: "My name is Anong and I live in Chiang Mai" });
    await graph.runTurn({ ...scope, message: "What is my name?" });
    expect(promptParts(model.prompts[1] ?? []).memory).toHaveLength(1);

    const off = await graph.runTurn({ ...scope, message: "What is my name?", useMemory: false });
    const parts = promptParts(model.prompts[2] ?? []);
    expect(parts.memory).toEqual([]);
    expect(parts.history).toEqual([]);
    expect(off.memoryContext).toEqual({ recalled: null, text: "", tokens: 0 });
    expect(off.needMemory).toBe(true);
    expect(off.memoryReason).toMatch(/use_memory false/);
    const thread = await graph.sessionMessages(scope);
    expect(thread?.map((m) => m.text)).toContain("Hi again.");
  });
});

describe("topK and memorySections", () => {
  it("shows at most topK similar messages, and only the sections asked for", async () => {
    const graph = await sqliteGraph();
    for (const n of [1, 2, 3, 4]) await graph.runTurn({ ...scope, sessionId: `old-${n}`, message: `My blender number ${n} makes a grinding noise` });
    const two = await graph.runTurn({ ...scope, message: "What did I say about my blender noise?", topK: 2 });
    expect(two.memoryContext.recalled?.similar.length).toBe(2);
    const none = await graph.runTurn({ ...scope, sessionId: "s2", message: "What did I say about my blender noise?", topK: 0 });
    expect(none.memoryContext.recalled?.similar).toEqual([]);

    const factsOnly = await graph.runTurn({ ...scope, sessionId: "s3", message: "My name is Anong. What did I say about my blender?", memorySections: ["facts"] });
    await graph.settled();
    const next = await graph.runTurn({ ...scope, sessionId: "s3", message: "What did I say about my blender?", memorySections: ["facts"] });
    const recalled = next.memoryContext.recalled;
    expect(recalled?.similar).toEqual([]);
    expect(recalled?.recentTurns).toEqual([]);
    expect(recalled?.facts.map((f) => f.value)).toContain("Anong");
    expect(next.memoryContext.text).not.toMatch(/blender/);
    expect(next.memoryReason).toMatch(/^Used 1 fact/);
    expect(factsOnly.status).toBe("OK");
  });
});

describe("needMemory", () => {
  it("a message that stands on its own is not searched for similar messages; one about the user is", async () => {
    const graph = await sqliteGraph();
    await graph.runTurn({ ...scope, sessionId: "old", message: "The capital of France came up in my geography class" });
    const searches = vi.spyOn(graph.persistence.store, "search");
    const queried = () => searches.mock.calls.filter(([, options]) => typeof (options as SearchOperation | undefined)?.query === "string").length;

    const standalone = await graph.runTurn({ ...scope, message: "what is the capital of france?" });
    expect(standalone.needMemory).toBe(false);
    expect(queried()).toBe(0);
    expect(standalone.memoryContext.recalled?.similar).toEqual([]);
    expect(standalone.memoryReason).toMatch(/similar messages were not searched/);

    const aboutUser = await graph.runTurn({ ...scope, message: "what came up in my geography class?" });
    expect(aboutUser.needMemory).toBe(true);
    expect(queried()).toBeGreaterThan(0);
    expect(aboutUser.memoryContext.recalled?.similar.map((m) => m.text)).toContain("The capital of France came up in my geography class");
    expect(aboutUser.memoryReason).toMatch(/^Used .*: the message is about the user\.$/);
    expect(aboutUser.intent).toEqual(expect.any(String));
  });
});

describe("remember", () => {
  it("false: nothing of the turn reaches long-term memory; the window keeps it for the session", async () => {
    const { graph, store } = await memoryGraphForTest();
    graphs.push(graph);
    await graph.runTurn({ ...scope, message: "Hello there" });
    const before = (await store.search([scope.tenantId], { limit: 1000 })).map((item) => `${item.namespace.join("/")}/${item.key}`).sort();

    const secret = await graph.runTurn({ ...scope, message: "My phone is 555-0100, I feel awful, refund my order #1234 now!", remember: false, messageId: "m-secret" });
    expect(secret.status).toBe("OK");
    expect(secret.event?.saved).toBe(false);
    await graph.settled();
    const after = (await store.search([scope.tenantId], { limit: 1000 })).map((item) => `${item.namespace.join("/")}/${item.key}`).sort();
    expect(after).toEqual(before);
    expect(JSON.stringify(await graph.exportUser(scope))).not.toContain("555-0100");

    const state = await graph.sessionState(scope);
    expect(state?.messages.map((m) => textOf(m))).toContain("My phone is 555-0100, I feel awful, refund my order #1234 now!");

    // The session's stored thread goes on from its last stored message.
    await graph.runTurn({ ...scope, message: "Thanks, bye" });
    const thread = await graph.sessionMessages(scope);
    expect(thread?.filter((m) => m.role === "user").map((m) => m.text)).toEqual(["Hello there", "Thanks, bye"]);
  });
});
