import { afterEach, describe, expect, it } from "vitest";
import { manualClock } from "../support/deps.js";
import type { TurnResponse } from "../../src/server/turn-response.js";
import { parseSse, tenantItems, testServer, type TestServer } from "./helpers.js";

/** use_memory, top_k, memory_sections and remember over HTTP, and intent, need_memory, memory_reason back. */

let server: TestServer;
afterEach(async () => server.close());

const turn = async (body: Record<string, unknown>) => {
  const res = await server.call("POST", "/v1/turns", { body: { user_id: "u1", session_id: "s1", ...body } });
  return { status: res.status, body: (await res.json()) as TurnResponse & { error?: { code: string; field: string } } };
};

describe("memory switches of POST /v1/turns", () => {
  it("says whether memory was needed and why, with the intent", async () => {
    server = await testServer();
    await turn({ message: "My name is Anong" });
    const { body } = await turn({ message: "What is my name?" });
    expect(body.need_memory).toBe(true);
    expect(body.memory_reason).toMatch(/^Used 1 fact.*the message is about the user\.$/);
    expect(body.intent).toEqual(expect.any(String));
    const standalone = await turn({ message: "Tell a joke about penguins" });
    expect(standalone.body.need_memory).toBe(false);
    expect(standalone.body.memory_reason).toMatch(/similar messages were not searched/);
  });

  it("use_memory false: no memory block, and the turn is stored", async () => {
    server = await testServer();
    await turn({ message: "My name is Anong" });
    const { body } = await turn({ message: "What is my name?", use_memory: false });
    expect(body.memory_context).toEqual({ recalled: null, text: "", tokens: 0 });
    expect(body.candidate?.text).not.toContain("Anong");
    expect(body.memory_reason).toBe("No memory was used: the request turned it off (use_memory false).");
    const thread = (await (await server.call("GET", "/v1/sessions/s1/messages?user_id=u1")).json()) as { messages: { text: string }[] };
    expect(thread.messages.map((m) => m.text)).toContain("What is my name?");
  });

  it("top_k and memory_sections shape what is recalled; the stream's result carries the same fields", async () => {
    server = await testServer();
    for (const n of [1, 2, 3]) await turn({ session_id: `old-${n}`, message: `My kettle number ${n} leaks water` });
    await turn({ session_id: "old-4", message: "My name is Anong" });
    const { body } = await turn({ message: "What did I say about my kettle?", top_k: 1, memory_sections: ["similar", "facts"] });
    const recalled = body.memory_context.recalled as { similar: unknown[]; recent_turns: unknown[]; facts: unknown[] };
    expect(recalled.similar).toHaveLength(1);
    expect(recalled.recent_turns).toEqual([]);
    expect(recalled.facts).toHaveLength(1);
    const res = await server.call("POST", "/v1/turns/stream", { body: { user_id: "u1", session_id: "s1", message: "And my name?", memory_sections: [] } });
    const result = parseSse(await res.text()).find((e) => e.event === "result")?.data as TurnResponse;
    expect(result.memory_reason).toBe("No memory was used: the request named no memory sections.");
    expect(result.need_memory).toBe(true);
  });

  it("remember false: nothing reaches long-term memory", async () => {
    server = await testServer();
    await turn({ message: "Hello" });
    const before = (await tenantItems(server.memory, "tenantA")).map((item) => item.key).sort();
    const { status, body } = await turn({ message: "My email is anong@example.com", remember: false, message_id: "incognito-1" });
    expect(status).toBe(200);
    expect(body.status).toBe("OK");
    await server.memory.settled();
    expect((await tenantItems(server.memory, "tenantA")).map((item) => item.key).sort()).toEqual(before);
    const memory = await (await server.call("GET", "/v1/users/u1/memory")).text();
    expect(memory).not.toContain("anong@example.com");
  });

  it.each([
    { body: { use_memory: "no" }, field: "use_memory" },
    { body: { top_k: 51 }, field: "top_k" },
    { body: { top_k: -1 }, field: "top_k" },
    { body: { top_k: 2.5 }, field: "top_k" },
    { body: { memory_sections: ["history", "diary"] }, field: "memory_sections.1" },
    { body: { memory_sections: "facts" }, field: "memory_sections" },
    { body: { remember: 0 }, field: "remember" },
  ])("rejects $field = $body with a 400 naming it, storing nothing", async ({ body, field }) => {
    server = await testServer();
    const res = await turn({ message: "My name is Anong", ...body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "INVALID_INPUT", field });
    expect(await tenantItems(server.memory, "tenantA")).toEqual([]);
  });
});

describe("facts bounded in time", () => {
  it("a fact the message bounds gets expires_at, and leaves the prompt once it has passed", async () => {
    const clock = manualClock("2026-11-25T10:00:00.000Z"); // a Wednesday
    server = await testServer({ now: clock.now });
    await turn({ message: "I am staying in Chiang Mai until Friday" });
    const memory = (await (await server.call("GET", "/v1/users/u1/memory")).json()) as { facts: { key: string; value: string; expires_at?: string }[] };
    expect(memory.facts).toEqual([expect.objectContaining({ key: "location.city", value: "Chiang Mai", expires_at: "2026-11-27T23:59:59.999Z" })]);
    const during = await turn({ message: "Where am I staying?" });
    expect(during.body.memory_context.text).toContain("Chiang Mai");
    clock.advance(3 * 86_400_000);
    const after = await turn({ session_id: "s2", message: "Where am I staying?" });
    expect((after.body.memory_context.recalled as { facts: unknown[] }).facts).toEqual([]);
    expect(after.body.memory_context.text).not.toMatch(/^- location city:/m);
    // What was said then is recalled as no longer true, never as current.
    for (const line of after.body.memory_context.text.split("\n").filter((l: string) => l.includes("Chiang Mai"))) {
      expect(line).toContain("(location city Chiang Mai is no longer current)");
    }
  });

  it("PATCH a fact with expires_at bounds it (answered in UTC); once passed it leaves the prompt", async () => {
    const clock = manualClock("2026-11-25T10:00:00.000Z");
    server = await testServer({ now: clock.now });
    await turn({ message: "I live in Bangkok" });
    const listed = (await (await server.call("GET", "/v1/users/u1/facts?current=true")).json()) as { facts: { id: string; value: string }[] };
    const bangkok = listed.facts.find((fact) => fact.value === "Bangkok")!;
    const path = `/v1/users/u1/facts/${encodeURIComponent(bangkok.id)}`;
    const res = await server.call("PATCH", path, { body: { expires_at: "2026-11-25T19:00:00+07:00" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { fact: unknown }).fact).toMatchObject({ id: bangkok.id, value: "Bangkok", expires_at: "2026-11-25T12:00:00.000Z" });
    expect((await turn({ session_id: "s2", message: "Where do I live?" })).body.memory_context.text).toContain("Bangkok");
    clock.advance(3 * 3_600_000);
    const after = await turn({ session_id: "s3", message: "Where do I live?" });
    expect((after.body.memory_context.recalled as { facts: unknown[] }).facts).toEqual([]);
  });

  it.each(["next week", "2026-11-26", 12, "2026-11-26T10:00:00"])("PATCH a fact with expires_at %j: 400 naming it, nothing changed", async (expires_at) => {
    server = await testServer();
    await turn({ message: "I live in Bangkok" });
    const before = await (await server.call("GET", "/v1/users/u1/facts")).json();
    const [fact] = (before as { facts: { id: string }[] }).facts;
    const res = await server.call("PATCH", `/v1/users/u1/facts/${encodeURIComponent(fact?.id ?? "")}`, { body: { value: "Paris", expires_at } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: "INVALID_INPUT", field: "expires_at" });
    expect(await (await server.call("GET", "/v1/users/u1/facts")).json()).toEqual(before);
  });
});
