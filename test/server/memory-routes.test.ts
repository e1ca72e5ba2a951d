import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryGraph } from "../../src/app/create-memory-graph.js";
import { createServer } from "../../src/server/create-server.js";
import { tenantItems, testServer, type TestServer } from "./helpers.js";

let server: TestServer;
afterEach(async () => server.close());

// Response bodies are checked field by field; a loose type keeps the assertions short.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;
const turn = (session: string, message: string, user = "u1") =>
  server.call("POST", "/v1/turns", { body: { user_id: user, session_id: session, message } });
const get = async (p: string) => (await server.call("GET", p)).json() as Promise<Json>;

describe("GET /v1/users/:id/memory", () => {
  it("lists events, attributes, facts with their validity, and summaries", async () => {
    server = await testServer({ limits: { summaryInterval: 1 } });
    await turn("s1", "My email is anong@example.com");
    await turn("s1", "Actually my email is anong@work.example");
    // Summaries are made after the reply, off the session's lock: they show once committed.
    await server.memory.settled();
    const memory = await get("/v1/users/u1/memory");
    expect(Object.keys(memory).sort()).toEqual(["attributes", "events", "facts", "summaries", "user_id"]);
    expect(memory.attributes.email).toBe("anong@work.example");
    const emails = memory.facts.filter((f: Json) => f.key === "email");
    expect(emails).toHaveLength(2);
    expect(emails.find((f: Json) => f.valid_to === null)?.value).toBe("anong@work.example");
    expect(emails.find((f: Json) => f.valid_to !== null)?.valid_from).toMatch(/^\d{4}-/);
    expect(memory.summaries.length).toBeGreaterThan(0);
    expect(memory.summaries[0]).toHaveProperty("session_id", "s1");
    expect(memory.events.length).toBeGreaterThan(0);
    expect(memory.events[0]).toHaveProperty("importance");
  });

  it("is empty, not an error, for an unknown user", async () => {
    server = await testServer();
    expect(await get("/v1/users/nobody/memory")).toEqual({ user_id: "nobody", events: [], attributes: {}, facts: [], summaries: [] });
  });
});

describe("DELETE", () => {
  it("forgets a user: every layer, every session; then memory reads empty", async () => {
    server = await testServer({ limits: { summaryInterval: 1 } });
    await turn("s1", "My email is anong@example.com");
    await turn("s2", "I want to cancel my order 123");
    await turn("s1", "hello from another user", "u2");
    const res = await server.call("DELETE", "/v1/users/u1");
    expect(res.status).toBe(200);
    const { deleted } = (await res.json()) as Json;
    expect(deleted.sessions).toBe(2);
    expect(deleted.threads).toBe(2);
    expect(deleted.items).toBeGreaterThanOrEqual(4);
    expect(await get("/v1/users/u1/memory")).toEqual({ user_id: "u1", events: [], attributes: {}, facts: [], summaries: [] });
    expect((await server.call("GET", "/v1/sessions/s1/messages?user_id=u1")).status).toBe(404);
    const left = await tenantItems(server.memory, "tenantA");
    expect(left.length).toBeGreaterThan(0);
    expect(left.every((item) => item.namespace[2] === "u2")).toBe(true);
    expect((await get("/v1/sessions/s1/messages?user_id=u2")).messages).toHaveLength(2);
    const again = (await (await server.call("DELETE", "/v1/users/u1")).json()) as Json;
    expect(again.deleted).toEqual({ items: 0, messages: 0, summaries: 0, events: 0, facts: 0, sessions: 0, threads: 0 });
    expect(again).not.toHaveProperty("restored");
  });

  it("forgets one session and what was learned in it; a fact it superseded is current again", async () => {
    server = await testServer({ limits: { summaryInterval: 1 } });
    await turn("s0", "My email is anong@example.com");
    await turn("s1", "Actually my email is anong@work.example");
    await turn("s1", "I want to cancel my order 123");
    const before = await get("/v1/users/u1/memory");
    expect(before.attributes.email).toBe("anong@work.example");
    expect(before.events.some((e: Json) => e.session_id === "s1")).toBe(true);
    const res = await server.call("DELETE", "/v1/sessions/s1?user_id=u1");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({ user_id: "u1", session_id: "s1", deleted: { sessions: 1, threads: 1, messages: 4, facts: 1 }, restored: { facts: 1 } });
    expect(body.deleted.events).toBeGreaterThan(0);
    expect(body.deleted.summaries).toBeGreaterThan(0);
    // Besides the layers, one memory-context record per answered turn (half the messages).
    expect(body.deleted.items).toBe(body.deleted.messages + body.deleted.summaries + body.deleted.events + body.deleted.facts + body.deleted.messages / 2);
    expect((await server.call("GET", "/v1/sessions/s1/messages?user_id=u1")).status).toBe(404);
    expect((await get("/v1/sessions/s0/messages?user_id=u1")).messages).toHaveLength(2);
    const memory = await get("/v1/users/u1/memory");
    expect(memory.attributes).toEqual({ email: "anong@example.com" });
    expect(memory.facts).toEqual([expect.objectContaining({ key: "email", value: "anong@example.com", valid_to: null, session_id: "s0" })]);
    for (const layer of ["events", "facts", "summaries"]) expect(memory[layer].every((r: Json) => r.session_id === "s0")).toBe(true);
    expect(JSON.stringify(memory)).not.toContain("anong@work.example");
    expect(JSON.stringify(memory)).not.toContain("order 123");
    const again = (await (await server.call("DELETE", "/v1/sessions/s1?user_id=u1")).json()) as Json;
    expect(again).toMatchObject({ deleted: { items: 0, sessions: 0, threads: 0 }, restored: { facts: 0 } });
  });
});

describe("ids in the path and query", () => {
  it.each([
    { name: "path escape that is not UTF-8", method: "DELETE", path: "/v1/users/%FF", field: "user_id" },
    { name: "lone surrogate escaped as UTF-8 bytes", method: "GET", path: "/v1/users/%ED%A0%80/memory", field: "user_id" },
    { name: "bare %", method: "GET", path: "/v1/sessions/s%/messages?user_id=u1", field: "session_id" },
    { name: "query escape that is not UTF-8", method: "DELETE", path: "/v1/sessions/s1?user_id=%FF", field: "user_id" },
  ])("refuses a malformed escape ($name) instead of reading it as a literal % in the id", async ({ method, path, field }) => {
    server = await testServer();
    // A user whose id really is "%FF" (sent properly as %25FF) must not be what a malformed %FF names.
    await turn("s1", "My email is percent@example.com", "%FF");
    const res = await server.call(method, path);
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error).toMatchObject({ code: "INVALID_ID", field });
    expect((await get("/v1/sessions/s1/messages?user_id=%25FF")).messages).toHaveLength(2);
  });

  it("decodes well-formed escapes in the path and query (+ is a space in the query only)", async () => {
    server = await testServer();
    await turn("s 1+", "hello", "anong@example.com");
    const thread = await get("/v1/sessions/s%201%2B/messages?user_id=anong%40example.com");
    expect(thread).toMatchObject({ user_id: "anong@example.com", session_id: "s 1+" });
    expect(thread.messages).toHaveLength(2);
    expect((await server.call("GET", "/v1/sessions/s%201%2B/messages?user_id=anong%40example+com")).status).toBe(404);
  });
});

describe("health", () => {
  it("answers /healthz always and /readyz while storage answers and not draining", async () => {
    let draining = false;
    server = await testServer({}, { isDraining: () => draining });
    expect(await (await server.call("GET", "/healthz", { key: null })).json()).toEqual({ status: "ok" });
    expect(await (await server.call("GET", "/readyz", { key: null })).json()).toEqual({ status: "ready" });
    draining = true;
    expect((await server.call("GET", "/readyz", { key: null })).status).toBe(503);
  });

  it("reports storage that does not answer as not ready", async () => {
    server = await testServer();
    server.memory.persistence.ping = async () => {
      throw new Error("database is locked");
    };
    const res = await server.call("GET", "/readyz", { key: null });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: { code: "STORAGE_UNREACHABLE" } });
  });
});

describe("on the SQLite backend, with no API keys", () => {
  it("serves tenant default without a key: turn, read, forget", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-server-"));
    const memory = await createMemoryGraph({ backend: "sqlite", sqlitePath: path.join(dir, "m.db"), chatModel: null });
    server = { memory, close: () => memory.close() } as TestServer;
    const app = createServer({ memory });
    const post = await app.request("/v1/turns", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user_id: "u1", session_id: "s1", message: "My email is anong@example.com" }),
    });
    expect(post.status).toBe(200);
    expect(((await post.json()) as Json).candidate.model).toBe("offline");
    expect((((await (await app.request("/v1/sessions/s1/messages?user_id=u1")).json()) as Json).messages as unknown[]).length).toBe(2);
    expect(((await (await app.request("/v1/users/u1/memory")).json()) as Json).attributes.email).toBe("anong@example.com");
    const forgotten = (await (await app.request("/v1/users/u1", { method: "DELETE" })).json()) as Json;
    expect(forgotten.deleted).toMatchObject({ sessions: 1, threads: 1 });
    expect(await memory.persistence.store.search(["default"], { limit: 10 })).toEqual([]);
    expect((await app.request("/v1/sessions/s1/messages?user_id=u1")).status).toBe(404);
    await memory.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
