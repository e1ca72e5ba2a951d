import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { graphDepsOf } from "../../src/app/create-memory-graph.js";
import { compileGraph } from "../../src/graph/build-graph.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { saveTranscriptMessage, walkThread } from "../../src/memory/transcript.js";
import { textOf } from "../../src/messages/message-meta.js";
import { memoryGraphForTest, scope } from "../support/deps.js";

const alice = { tenantId: "t1", userId: "alice", sessionId: "s1" };
const mallory = { tenantId: "t2", userId: "mallory", sessionId: "s1" };

describe("runTurn: a messageId is an idempotency key", () => {
  it("replays the finished turn (replayed: true) and writes nothing", async () => {
    const { graph, store, checkpointer } = await memoryGraphForTest();
    const first = await graph.runTurn({ ...scope, message: "hello", messageId: "k1" });
    const items = await store.search([scope.tenantId], { limit: 100 });
    const checkpoints = await countOf(checkpointer.list({}));
    const again = await graph.runTurn({ ...scope, message: "hello", messageId: "k1" });
    expect(first.replayed).toBe(false);
    expect(again).toEqual({ ...first, replayed: true });
    expect(await store.search([scope.tenantId], { limit: 100 })).toEqual(items);
    expect(await countOf(checkpointer.list({}))).toBe(checkpoints);
  });

  it.each([
    { name: "another text", retry: { message: "bye", messageId: "k1" } },
    { name: "the id of the reply", retry: { message: "hello", messageId: "REPLY" } },
    { name: "another parent", retry: { message: "hello", messageId: "k1", parentMessageId: "REPLY" } },
  ])("refuses $name with MESSAGE_ID_CONFLICT", async ({ retry }) => {
    const { graph } = await memoryGraphForTest();
    const first = await graph.runTurn({ ...scope, message: "hello", messageId: "k1" });
    const reply = first.messageIds.assistant ?? "";
    const input = { ...scope, ...retry, messageId: retry.messageId.replace("REPLY", reply) };
    if (retry.parentMessageId) input.parentMessageId = reply;
    await expect(graph.runTurn(input)).rejects.toMatchObject({ code: "MESSAGE_ID_CONFLICT", kind: "user", field: "messageId" });
  });

  it("streamTurn replays the same way, handing the stored reply to onToken", async () => {
    const { graph } = await memoryGraphForTest();
    const first = await graph.runTurn({ ...scope, message: "hello", messageId: "k1" });
    const tokens: string[] = [];
    const again = await graph.streamTurn({ ...scope, message: "hello", messageId: "k1" }, (t) => tokens.push(t));
    expect(again.replayed).toBe(true);
    expect(tokens.join("")).toBe(first.candidate?.text);
  });
});

describe("the graph refuses to make a message its own ancestor", () => {
  it("ingest_prompt refuses a messageId that is already stored (the graph without the facade)", async () => {
    const app = compileGraph(graphDepsOf({ chatModel: null }), { checkpointer: new MemorySaver(), store: new InMemoryStore() });
    const config = { configurable: { thread_id: "x" } };
    const first = await app.invoke({ ...scope, message: "hi" }, config);
    const replyId = first.turn?.replyId ?? "";
    await expect(app.invoke({ ...scope, message: "hijack", messageId: replyId }, config)).rejects.toMatchObject({ code: "MESSAGE_ID_CONFLICT" });
    const state = await app.getState(config);
    expect(state.values.messages.map(textOf)).toEqual([textOf(first.messages[0]!), textOf(first.messages[1]!)]);
  });

  it("the thread walker refuses a cycle with THREAD_CYCLE instead of looping or dropping history", async () => {
    const store = new InMemoryStore();
    const at = "2026-11-01T10:00:00.000Z";
    await saveTranscriptMessage(store, scope, { id: "a", role: "user", text: "a", parentId: "b", sessionId: scope.sessionId, createdAt: at });
    await saveTranscriptMessage(store, scope, { id: "b", role: "assistant", text: "b", parentId: "a", sessionId: scope.sessionId, createdAt: at });
    await expect(walkThread(store, scope, "b", { max: 10 })).rejects.toMatchObject({ code: "THREAD_CYCLE" });
  });
});

describe("a checkpoint thread belongs to one tenant, user and session", () => {
  it("a graph caller choosing their own thread_id cannot read another scope's thread", async () => {
    const store = new InMemoryStore();
    const app = compileGraph(graphDepsOf({ chatModel: null }), { checkpointer: new MemorySaver(), store });
    const config = { configurable: { thread_id: "shared-thread" } };
    await app.invoke({ ...alice, message: "My secret is 4242" }, config);
    await expect(app.invoke({ ...mallory, message: "What is the secret?" }, config)).rejects.toMatchObject({
      code: "THREAD_SCOPE_MISMATCH",
    });
    expect(await store.search(namespaces.user(mallory), { limit: 10 })).toEqual([]);
    const state = await app.getState(config);
    expect(state.values.scope).toEqual(alice);
    // Alice's next turn on her thread goes on as before.
    const next = await app.invoke({ ...alice, message: "still me" }, config);
    expect(next.status).toBe("OK");
    expect(next.messages.map(textOf)).toContain("My secret is 4242");
  });

  it.each([
    { name: "another tenant", other: { ...alice, tenantId: "t2" } },
    { name: "another user", other: { ...alice, userId: "bob" } },
    { name: "another session", other: { ...alice, sessionId: "s2" } },
  ])("runTurn with an explicit threadId refuses $name", async ({ other }) => {
    const { graph, store } = await memoryGraphForTest();
    await graph.runTurn({ ...alice, message: "hello" }, { threadId: "mine" });
    const before = await store.search([], { limit: 100 });
    await expect(graph.runTurn({ ...other, message: "hi" }, { threadId: "mine" })).rejects.toMatchObject({ code: "THREAD_SCOPE_MISMATCH" });
    expect(await store.search([], { limit: 100 })).toEqual(before);
  });

  it("runTurn derives the thread from the scope by default, so two users never share one", async () => {
    const { graph } = await memoryGraphForTest();
    await graph.runTurn({ ...alice, message: "hello" });
    const other = await graph.runTurn({ ...mallory, message: "hi" });
    expect(other.status).toBe("OK");
    expect((await graph.sessionState(mallory))?.messages.map(textOf)).not.toContain("hello");
  });
});

async function countOf(items: AsyncIterable<unknown>): Promise<number> {
  let count = 0;
  for await (const _item of items) count += 1;
  return count;
}
