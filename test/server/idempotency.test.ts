import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { MemoryGraphOptions } from "../../src/app/create-memory-graph.js";
import { FlakyChatModel, SlowChatModel } from "../support/models.js";
import { tenantItems, testServer, parseSse, type TestServer } from "./helpers.js";

interface TurnBody {
  status: string;
  replayed: boolean;
  candidate: { id: string; text: string } | null;
  message_ids: { user: string | null; assistant: string | null };
  errors: { code: string }[];
}
interface MessagesBody {
  messages: { id: string; role: string; text: string; parent_id: string | null }[];
}

const backends: { name: string; options: () => MemoryGraphOptions }[] = [
  { name: "memory", options: () => ({ backend: "memory" }) },
  { name: "sqlite", options: () => ({ backend: "sqlite", sqlitePath: path.join(fs.mkdtempSync(path.join(os.tmpdir(), "mg-idem-")), "m.db") }) },
];

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function turn(s: TestServer, body: Record<string, unknown>) {
  const response = await s.call("POST", "/v1/turns", { body: { user_id: "u1", session_id: "s1", ...body } });
  return { response, body: (await response.json()) as TurnBody & { error?: { code: string; field?: string } } };
}

async function thread(s: TestServer): Promise<MessagesBody["messages"]> {
  const response = await s.call("GET", "/v1/sessions/s1/messages?user_id=u1");
  return ((await response.json()) as MessagesBody).messages;
}

/** Everything stored for the tenant and the session's checkpoint, to prove a refused request wrote nothing. */
async function snapshot(s: TestServer) {
  const items = (await tenantItems(s.memory, "tenantA")).map((item) => [item.namespace.join("/"), item.key, JSON.stringify(item.value)]);
  const state = await s.memory.sessionState({ tenantId: "tenantA", userId: "u1", sessionId: "s1" });
  return { items: items.sort(), messages: state?.messages.map((m) => m.id), lastMessageId: state?.session.lastMessageId };
}

describe.each(backends)("a retried message_id on the $name backend", ({ options }) => {
  it("replays the stored turn and keeps history whole (the reported reproduction)", async () => {
    server = await testServer(options());
    const first = await turn(server, { message: "first" });
    const second = await turn(server, { message: "second", message_id: "k1" });
    const retry = await turn(server, { message: "second", message_id: "k1" });
    const third = await turn(server, { message: "third" });
    for (const t of [first, second, retry, third]) expect(t.response.status).toBe(200);

    expect(second.body.replayed).toBe(false);
    expect(second.response.headers.get("idempotent-replayed")).toBeNull();
    expect(retry.body.replayed).toBe(true);
    expect(retry.response.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body.candidate).toEqual(second.body.candidate);
    expect(retry.body.message_ids).toEqual({ user: "k1", assistant: second.body.message_ids.assistant });

    const messages = await thread(server);
    expect(messages.map((m) => m.text.split("\n")[0]?.slice(0, 6))).toHaveLength(6);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(messages[0]).toMatchObject({ text: "first", parent_id: null });
    expect(messages[2]).toMatchObject({ id: "k1", text: "second", parent_id: first.body.message_ids.assistant });
    expect(messages[3]?.id).toBe(second.body.message_ids.assistant);
    expect(messages[4]).toMatchObject({ text: "third", parent_id: second.body.message_ids.assistant });
    const window = (await server.memory.sessionState({ tenantId: "tenantA", userId: "u1", sessionId: "s1" }))?.messages ?? [];
    expect(window).toHaveLength(6);
  });

  it("refuses the same id with another text: 409 MESSAGE_ID_CONFLICT on message_id, nothing written", async () => {
    server = await testServer(options());
    await turn(server, { message: "second", message_id: "k1" });
    const before = await snapshot(server);
    const clash = await turn(server, { message: "something else", message_id: "k1" });
    expect(clash.response.status).toBe(409);
    expect(clash.body.error).toMatchObject({ code: "MESSAGE_ID_CONFLICT", field: "message_id" });
    expect(await snapshot(server)).toEqual(before);
  });

  it("refuses the id of an assistant message: 409, the reply is not overwritten", async () => {
    server = await testServer(options());
    const first = await turn(server, { message: "first" });
    const before = await snapshot(server);
    const clash = await turn(server, { message: "hijack", message_id: first.body.message_ids.assistant });
    expect(clash.response.status).toBe(409);
    expect(clash.body.error).toMatchObject({ code: "MESSAGE_ID_CONFLICT", field: "message_id" });
    expect(await snapshot(server)).toEqual(before);
    expect((await thread(server))[1]).toMatchObject({ role: "assistant", parent_id: first.body.message_ids.user });
  });

  it("refuses a regeneration whose parent_message_id is fine but whose message_id collides", async () => {
    server = await testServer(options());
    const first = await turn(server, { message: "first" });
    await turn(server, { message: "second", message_id: "k1" });
    const before = await snapshot(server);
    const regen = await turn(server, { parent_message_id: first.body.message_ids.user, message_id: "k1" });
    expect(regen.response.status).toBe(409);
    expect(regen.body.error).toMatchObject({ code: "MESSAGE_ID_CONFLICT", field: "message_id" });
    expect(await snapshot(server)).toEqual(before);
  });

  it("replays a regeneration retried with its message_id", async () => {
    server = await testServer(options());
    const first = await turn(server, { message: "first" });
    const regen = await turn(server, { parent_message_id: first.body.message_ids.user, message_id: "r1" });
    const before = await snapshot(server);
    const retry = await turn(server, { parent_message_id: first.body.message_ids.user, message_id: "r1" });
    expect(retry.body).toMatchObject({ replayed: true, candidate: regen.body.candidate });
    expect(await snapshot(server)).toEqual(before);
  });
});

describe("a retry racing the original", () => {
  it("waits for the first attempt (the turn lock) and replays it: one message, one reply", async () => {
    const model = new SlowChatModel(300, ["the one answer"]);
    server = await testServer({ chatModel: model });
    const [a, b] = await Promise.all([turn(server, { message: "hello", message_id: "k1" }), turn(server, { message: "hello", message_id: "k1" })]);
    expect([a.response.status, b.response.status]).toEqual([200, 200]);
    expect([a.body.replayed, b.body.replayed].sort()).toEqual([false, true]);
    expect(a.body.candidate).toEqual(b.body.candidate);
    expect(model.calls).toBe(1);
    const messages = await thread(server);
    expect(messages.map((m) => m.id)).toEqual(["k1", a.body.message_ids.assistant]);
  });

  it("over the stream route too: the replay streams the stored reply and says so", async () => {
    server = await testServer({ chatModel: new SlowChatModel(200, ["streamed answer"]) });
    const send = () => server!.call("POST", "/v1/turns/stream", { body: { user_id: "u1", session_id: "s1", message: "hello", message_id: "k1" } });
    const [a, b] = await Promise.all([send(), send()]);
    const results = await Promise.all(
      [a, b].map(async (response) => {
        const events = parseSse(await response.text());
        const result = events.find((e) => e.event === "result")?.data as TurnBody;
        const tokens = events.filter((e) => e.event === "token").map((e) => (e.data as { text: string }).text).join("");
        return { replayedHeader: response.headers.get("idempotent-replayed"), result, tokens };
      }),
    );
    const replay = results.find((r) => r.result.replayed);
    const original = results.find((r) => !r.result.replayed);
    expect(replay?.replayedHeader).toBe("true");
    expect(original?.replayedHeader).toBeNull();
    expect(replay?.tokens).toBe("streamed answer");
    expect(replay?.result.candidate).toEqual(original?.result.candidate);
  });
});

describe("a turn that ended in ERROR", () => {
  it("answers 502 with the usual body; a retry with its id asks the model again and stores the message once", async () => {
    const model = new FlakyChatModel(1, ["answered at last"]);
    server = await testServer({ chatModel: model });
    const failed = await turn(server, { message: "please answer", message_id: "k1" });
    expect(failed.response.status).toBe(502);
    expect(failed.body).toMatchObject({ status: "ERROR", candidate: null, replayed: false, message_ids: { user: "k1", assistant: null } });
    expect(failed.body.errors.map((e) => e.code)).toContain("MODEL_ERROR");

    const retry = await turn(server, { message: "please answer", message_id: "k1" });
    expect(retry.response.status).toBe(200);
    expect(retry.body).toMatchObject({ status: "OK", replayed: false, message_ids: { user: "k1" } });
    expect(retry.body.candidate?.text).toBe("answered at last");
    expect(model.calls).toBe(2);
    const transcript = (await tenantItems(server.memory, "tenantA")).filter((item) => item.namespace.includes("messages"));
    expect(transcript.filter((item) => item.key === "k1")).toHaveLength(1);
    expect((await thread(server)).map((m) => m.id)).toEqual(["k1", retry.body.message_ids.assistant]);

    const again = await turn(server, { message: "please answer", message_id: "k1" });
    expect(again.body).toMatchObject({ replayed: true, candidate: retry.body.candidate });
    expect(model.calls).toBe(2);
  });

  it("answers 502 without a message_id too", async () => {
    server = await testServer({ chatModel: new FlakyChatModel(5) });
    const failed = await turn(server, { message: "hello" });
    expect(failed.response.status).toBe(502);
    expect(failed.body.status).toBe("ERROR");
  });
});
