import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import type { Operation, OperationResults } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it } from "vitest";
import type { TurnResponse } from "../../src/server/turn-response.js";
import { parseSse, streamingModel, testServer, type TestServer } from "./helpers.js";

let server: TestServer;
afterEach(async () => server.close());

type MessagesResponse = { messages: { text: string; parent_id: string | null }[] };
const turn = (body: Record<string, unknown>) => server.call("POST", "/v1/turns", { body });

describe("POST /v1/turns", () => {
  it("answers a turn in snake_case and keeps the session's thread", async () => {
    server = await testServer();
    const res = await turn({ user_id: "u1", session_id: "s1", message: "Hello, my name is Anong" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as TurnResponse;
    expect(Object.keys(body).sort()).toEqual([
      "candidate", "classification", "degraded", "errors", "intent", "memory_context", "memory_reason", "message_ids", "need_memory", "replayed", "status", "trim", "usage",
    ]);
    expect(body.status).toBe("OK");
    expect(body.candidate).toMatchObject({ kind: "text", status: "proposed", model: "offline" });
    expect(body.candidate?.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(body.trim).toMatchObject({ before_count: 2, after_count: 2 });
    expect(body.memory_context.recalled).toHaveProperty("recent_turns");
    expect(body.message_ids.assistant).toBe(body.candidate?.id);

    const thread = await server.call("GET", "/v1/sessions/s1/messages?user_id=u1");
    expect(thread.status).toBe(200);
    const { messages } = (await thread.json()) as { messages: Record<string, unknown>[] };
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(messages[0]).toMatchObject({ id: body.message_ids.user, text: "Hello, my name is Anong", parent_id: null });
    expect(messages[1]).toMatchObject({ parent_id: body.message_ids.user, model: "offline" });
  });

  it("takes prompt annotations and answers SKIP for an empty prompt", async () => {
    server = await testServer();
    const ok = (await (await turn({ user_id: "u1", session_id: "s1", prompts: [{ text: "first" }, { text: "second" }] })).json()) as TurnResponse;
    expect(ok.status).toBe("OK");
    const skip = (await (await turn({ user_id: "u1", session_id: "s2", message: "   " })).json()) as TurnResponse;
    expect(skip).toMatchObject({ status: "SKIP", candidate: null, message_ids: { user: null, assistant: null } });
  });

  it("regenerates from parent_message_id: the thread follows the new branch", async () => {
    server = await testServer({ chatModel: streamingModel(["one", "two", "three"]) });
    const first = (await (await turn({ user_id: "u1", session_id: "s1", message: "A" })).json()) as TurnResponse;
    await turn({ user_id: "u1", session_id: "s1", message: "B" });
    const again = await turn({ user_id: "u1", session_id: "s1", parent_message_id: first.message_ids.user });
    expect(again.status).toBe(200);
    const regenerated = (await again.json()) as TurnResponse;
    expect(regenerated.status).toBe("OK");
    expect(regenerated.candidate?.text).toBe("three");
    const { messages } = (await (await server.call("GET", "/v1/sessions/s1/messages?user_id=u1")).json()) as MessagesResponse;
    expect(messages.map((m) => m.text)).toEqual(["A", "three"]);
    expect(messages[1]?.parent_id).toBe(first.message_ids.user);
  });
});

describe("POST /v1/turns/stream", () => {
  it("sends the reply's tokens, then the result", async () => {
    server = await testServer({ chatModel: streamingModel(["Hi there"]) });
    const res = await server.call("POST", "/v1/turns/stream", { body: { user_id: "u1", session_id: "s1", message: "hello" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events = parseSse(await res.text());
    const tokens = events.filter((e) => e.event === "token").map((e) => (e.data as { text: string }).text);
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.join("")).toBe("Hi there");
    expect(events.at(-1)?.event).toBe("result");
    expect(events.at(-1)?.data).toMatchObject({ status: "OK", candidate: { text: "Hi there" } });
    expect(events.findIndex((e) => e.event === "result")).toBe(events.length - 1);
  });

  it("sends the offline reply as one token when no model streams", async () => {
    server = await testServer();
    const res = await server.call("POST", "/v1/turns/stream", { body: { user_id: "u1", session_id: "s1", message: "hello" } });
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual(["token", "result"]);
    const result = events[1]?.data as { candidate: { text: string } };
    expect((events[0]?.data as { text: string }).text).toBe(result.candidate.text);
  });

  it("rejects a bad request with a plain 400 before any stream opens", async () => {
    server = await testServer();
    const res = await server.call("POST", "/v1/turns/stream", { body: { user_id: "u/1", session_id: "s1", message: "x" } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "INVALID_INPUT", field: "user_id" } });
  });

  it("rejects an unknown parent with a plain 400 too", async () => {
    server = await testServer();
    const res = await server.call("POST", "/v1/turns/stream", { body: { user_id: "u1", session_id: "s1", parent_message_id: "nope" } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "UNKNOWN_PARENT", field: "parent_message_id" } });
  });

  it("reports a fault inside the turn as an error event, without internals", async () => {
    class BrokenStore extends InMemoryStore {
      override async batch<Op extends readonly Operation[]>(operations: Op): Promise<OperationResults<Op>> {
        if (operations.some((op) => "value" in op)) throw new Error("disk on fire at /secret/path");
        return super.batch(operations);
      }
    }
    server = await testServer({ persistence: { store: new BrokenStore(), checkpointer: new MemorySaver() } });
    const res = await server.call("POST", "/v1/turns/stream", { body: { user_id: "u1", session_id: "s1", message: "hello" } });
    expect(res.status).toBe(200);
    const events = parseSse(await res.text());
    expect(events.map((e) => e.event)).toEqual(["error"]);
    expect(events[0]?.data).toEqual({ error: { code: "INTERNAL", message: "internal error" } });
    const plain = await server.call("POST", "/v1/turns", { body: { user_id: "u1", session_id: "s2", message: "hello" } });
    expect(plain.status).toBe(500);
    expect(await plain.text()).not.toContain("secret");
  });
});
