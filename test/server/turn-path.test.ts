import { MemorySaver } from "@langchain/langgraph";
import { afterEach, describe, expect, it, vi } from "vitest";
import { saveTranscriptMessages } from "../../src/memory/transcript.js";
import { turnRequestSchema } from "../../src/server/turn-routes.js";
import { turnInputSchema } from "../../src/graph/state/turn-input.js";
import { CountingStore } from "../support/counting-store.js";
import { testServer, type TestServer } from "./helpers.js";

// Response bodies are read field by field; a loose type keeps the assertions short.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

let server: TestServer;
let store: CountingStore;
afterEach(async () => {
  vi.restoreAllMocks();
  await server.close();
});

const serve = async () => {
  store = new CountingStore();
  server = await testServer({ persistence: { checkpointer: new MemorySaver(), store } });
};
const post = async (body: Json) => {
  const res = await server.call("POST", "/v1/turns", { body: { user_id: "u1", session_id: "s1", ...body } });
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
};
const SCOPE = { tenantId: "tenantA", userId: "u1", sessionId: "s1" };

describe("one way into a turn", () => {
  it("validates an HTTP turn once: the request schema, never the core schema again", async () => {
    await serve();
    const request = vi.spyOn(turnRequestSchema, "safeParse");
    const core = vi.spyOn(turnInputSchema, "safeParse");
    await post({ message: "hello", message_id: "m-1" });
    expect(request).toHaveBeenCalledTimes(1);
    expect(core).not.toHaveBeenCalled();
  });

  it("reads the parent and checks the message id once per HTTP turn (a continuation)", async () => {
    await serve();
    const first = await post({ message: "My name is Anong" });
    const reply = first.candidate.id as string;
    const from = store.seen.length;
    const second = await post({ message: "and I live in Chiang Mai", message_id: "m-2", parent_message_id: reply });
    expect(second.status).toBe("OK");
    expect(store.getsOf(reply, "/messages", from)).toBe(1);
    expect(store.getsOf("m-2", "/messages", from)).toBe(1);
  });

  it("reads the parent once per HTTP turn (a regeneration)", async () => {
    await serve();
    await post({ message: "Tell me a joke", message_id: "ask" });
    const from = store.seen.length;
    const again = await post({ parent_message_id: "ask" });
    expect(again.status).toBe("OK");
    expect(store.getsOf("ask", "/messages", from)).toBe(1);
  });

  it("still checks a run that does not come from the facade: nothing in its config or input skips a check", async () => {
    await serve();
    await post({ message: "hello", message_id: "taken" });
    const config = { configurable: { thread_id: "own-thread", memory_graph_prepared_turn: {} } };
    const run = { ...SCOPE, message: "another text", messageId: "taken" };
    await expect(server.memory.app.invoke(run, config)).rejects.toMatchObject({ code: "MESSAGE_ID_CONFLICT" });
    // The facade's one input value, `plan`, is not part of the graph's input schema.
    await expect(server.memory.app.invoke({ ...run, plan: { input: run, text: run.message, parent: null } } as never, config)).rejects.toThrow(/plan/);
    const orphan = { ...SCOPE, message: "hi", parentMessageId: "nowhere" };
    await expect(server.memory.app.invoke(orphan, { configurable: { thread_id: "own-2", memory_graph_prepared_turn: "ticket" } })).rejects.toMatchObject({
      code: "UNKNOWN_PARENT",
    });
  });
});

describe("GET /v1/sessions/:id/messages", () => {
  it("walks the current thread of a long session: one read per message of the thread, no listing", async () => {
    await serve();
    // A long history: 300 messages on the thread, and 300 of an abandoned branch beside it.
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    const chain = Array.from({ length: 300 }, (_, i) => ({
      id: `t${i}`,
      role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
      text: `thread message ${i}`,
      parentId: i === 0 ? null : `t${i - 1}`,
      sessionId: "s1",
      createdAt: at(i),
    }));
    const branch = chain.map((record, i) => ({ ...record, id: `b${i}`, text: `branch ${i}`, parentId: i === 0 ? "t0" : `b${i - 1}` }));
    await saveTranscriptMessages(store, SCOPE, [...chain, ...branch]);
    const last = await post({ message: "and one more", parent_message_id: "t299" });
    const from = store.seen.length;
    const res = await server.call("GET", "/v1/sessions/s1/messages?user_id=u1");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    const ids = (body.messages as Json[]).map((m) => m.id as string);
    expect(ids).toEqual([...chain.map((r) => r.id), last.message_ids.user, last.message_ids.assistant]);
    expect(body.messages[0]).toEqual({ id: "t0", role: "user", text: "thread message 0", parent_id: null, created_at: at(0) });
    const transcriptOps = store.seen.slice(from).filter((op) => op.namespace.endsWith("/messages"));
    expect(transcriptOps.every((op) => op.kind === "get")).toBe(true);
    expect(transcriptOps).toHaveLength(302);
  });
});
