import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEY_B, tenantItems, testServer, type TestServer } from "./helpers.js";

const sessions = [
  {
    session_id: "trip",
    started_at: "2023-05-08T13:56:00Z",
    messages: [
      { id: "m1", role: "user", text: "We are planning a trip to Chiang Mai in June", speaker: "Anong" },
      { id: "m2", role: "assistant", text: "Chiang Mai is lovely in June." },
    ],
  },
  { session_id: "work", started_at: "2023-06-01T09:00:00+07:00", messages: [{ id: "w1", role: "user", text: "The quarterly report is due on Friday" }] },
];

const document = { version: 1, user_id: "u9", sessions: [], events: [], facts: [], summaries: [] };
const file = { type: "image", transfer_method: "local_file", upload_file_id: "up-1", belongs_to: "user" };
const event = {
  id: "w1",
  type: "REQUEST",
  importance: 0.9,
  intent: "report",
  entities: [],
  language: "en",
  payload: {},
  text: "The quarterly report is due on Friday",
  message_id: "w1",
  session_id: "work",
  created_at: "2023-06-01T02:00:00.000Z",
  classified_by: "keywords",
};

describe("memory search, import and export over HTTP", () => {
  let server: TestServer;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-memapi-http-"));

  beforeAll(async () => {
    server = await testServer({ backend: "sqlite", sqlitePath: path.join(dir, "m.db"), limits: { summaryInterval: 2 } }, { importBodyLimitBytes: 4096 });
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("imports for the key's tenant, and search answers snake_case hits with every score", async () => {
    const res = await server.call("POST", "/v1/users/u1/sessions/import", { body: sessions });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ user_id: "u1", sessions: 2, messages: { imported: 3, skipped: 0 }, events: 0, facts: 0, summaries: 0, turns: 0, entities: 1, classified: 0 });

    const found = await server.call("GET", "/v1/users/u1/memory/search?q=trip%20to%20Chiang%20Mai&limit=1&memory_context=true");
    expect(found.status).toBe(200);
    const body = (await found.json()) as { hits: Record<string, unknown>[]; memory_context: { shown_ids: string[] } };
    expect(body.hits).toEqual([
      {
        id: "m1",
        session_id: "trip",
        role: "user",
        speaker: "Anong",
        text: "We are planning a trip to Chiang Mai in June",
        created_at: "2023-05-08T13:56:00.000Z",
        score: 1,
        scores: { lexical: 1, context: expect.any(Number), vector: null, fused: 1 },
      },
    ]);
    expect(body.memory_context.shown_ids).toContain("m1");
    const inWork = (await (await server.call("GET", "/v1/users/u1/memory/search?q=Chiang&session_id=work")).json()) as { hits: unknown[] };
    expect(inWork.hits).toEqual([]);

    // Another tenant's key names another tenant's user of the same id: nothing there.
    const other = await server.call("GET", "/v1/users/u1/memory/search?q=trip", { key: KEY_B });
    expect(((await other.json()) as { hits: unknown[] }).hits).toEqual([]);
    expect(((await (await server.call("GET", "/v1/users/u1/export", { key: KEY_B })).json()) as { sessions: unknown[] }).sessions).toEqual([]);
  });

  it("places a question's relative time against as_of, and refuses an as_of that is not a time", async () => {
    const orders = [
      { session_id: "march", started_at: "2023-03-01T10:00:00Z", messages: [{ id: "o1", role: "user", text: "I ordered new running shoes" }] },
      { session_id: "may", started_at: "2023-05-20T10:00:00Z", messages: [{ id: "o2", role: "user", text: "I ordered a new blender" }] },
    ];
    expect((await server.call("POST", "/v1/users/u7/sessions/import", { body: orders })).status).toBe(200);
    const first = async (asOf: string) => {
      const res = await server.call("GET", `/v1/users/u7/memory/search?q=${encodeURIComponent("What did I order 10 days ago?")}&as_of=${encodeURIComponent(asOf)}`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { hits: { id: string }[] }).hits[0]?.id;
    };
    expect(await first("2023-05-30T12:00:00Z")).toBe("o2");
    expect(await first("2023-03-11T12:00:00+02:00")).toBe("o1");
    const bad = await server.call("GET", "/v1/users/u7/memory/search?q=order&as_of=yesterday");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { field: string } }).error.field).toBe("as_of");
  });

  it.each([
    { body: [sessions[0], { ...sessions[1], messages: [{ id: "w2", role: "user", text: "hi", created_at: "yesterday" }] }], code: "INVALID_INPUT", field: "1.messages.0.created_at" },
    { body: [{ ...sessions[1], title: "x" }], code: "UNKNOWN_FIELD", field: "0.title" },
    { body: { version: 1, user_id: "u1", sessions: [], events: [], facts: [{ id: "f" }], summaries: [] }, code: "INVALID_INPUT", field: "facts.0.key" },
    { body: [{ ...sessions[1], messages: [{ id: "w3", role: "user", text: "hi", parent_id: "nope" }] }], code: "UNKNOWN_PARENT", field: "0.messages.0.parent_id" },
    { body: { ...document, sessions: [{ ...sessions[1], messages: [{ id: "w4", role: "robot", text: "hi" }] }] }, code: "INVALID_INPUT", field: "sessions.0.messages.0.role" },
    { body: { ...document, events: [{ ...event, message_id: "a/b" }] }, code: "INVALID_INPUT", field: "events.0.message_id" },
    { body: [{ ...sessions[1], messages: [{ id: "w5", role: "user", text: "hi", files: [{ ...file, size: 1 }] }] }], code: "UNKNOWN_FIELD", field: "0.messages.0.files.0.size" },
    { body: [{ ...sessions[1], messages: [{ id: "w6", role: "user", text: "hi", files: [{ ...file, url: "https://x.y/z" }] }] }], code: "INVALID_INPUT", field: "0.messages.0.files.0.url" },
  ])("rejects a bad element ($field) naming it, and stores nothing", async ({ body, code, field }) => {
    const before = await tenantItems(server.memory, "tenantB");
    const res = await server.call("POST", "/v1/users/u9/sessions/import", { body, key: KEY_B });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code, message: expect.stringContaining(field), field } });
    expect(await tenantItems(server.memory, "tenantB")).toEqual(before);
  });

  it("refuses a body over the import limit with 413 before reading it", async () => {
    const big = [{ ...sessions[1], messages: [{ id: "b1", role: "user", text: "x".repeat(5000) }] }];
    const res = await server.call("POST", "/v1/users/u1/sessions/import", { body: big });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("reads an imported session back, and its first turn follows the imported messages with their tail in the window", async () => {
    const startedAt = new Date(Date.now() - 10 * 60_000).toISOString(); // within the session TTL
    const recent = {
      session_id: "recent",
      started_at: startedAt,
      messages: [
        { id: "r1", role: "user", text: "I am looking for a flat in Chiang Mai" },
        { id: "r2", role: "assistant", text: "Which part of the city?" },
        { id: "r3", role: "user", text: "Near the old town, please" },
      ],
    };
    expect((await server.call("POST", "/v1/users/u3/sessions/import", { body: [recent] })).status).toBe(200);
    const read = async () => {
      const res = await server.call("GET", "/v1/sessions/recent/messages?user_id=u3");
      expect(res.status).toBe(200);
      return ((await res.json()) as { messages: { id: string; parent_id: string | null }[] }).messages;
    };
    expect((await read()).map((m) => [m.id, m.parent_id])).toEqual([["r1", null], ["r2", "r1"], ["r3", "r2"]]);

    const turn = await server.call("POST", "/v1/turns", { body: { user_id: "u3", session_id: "recent", message: "With a balcony", message_id: "r4" } });
    expect(turn.status).toBe(200);
    const thread = await read();
    expect(thread.slice(0, 4).map((m) => [m.id, m.parent_id])).toEqual([["r1", null], ["r2", "r1"], ["r3", "r2"], ["r4", "r3"]]);
    expect(thread).toHaveLength(5); // and the reply
    const state = await server.memory.sessionState({ tenantId: "tenantA", userId: "u3", sessionId: "recent" });
    expect(state?.messages.map((m) => m.id).filter((id) => id?.startsWith("r"))).toEqual(["r1", "r2", "r3", "r4"]);
  });

  it("continues the thread of a session imported long ago, its window starting over from long-term memory", async () => {
    expect((await server.call("POST", "/v1/users/u4/sessions/import", { body: [sessions[0]] })).status).toBe(200);
    expect((await server.call("POST", "/v1/turns", { body: { user_id: "u4", session_id: "trip", message: "Is June rainy there?", message_id: "m3" } })).status).toBe(200);
    const res = await server.call("GET", "/v1/sessions/trip/messages?user_id=u4");
    const thread = ((await res.json()) as { messages: { id: string; parent_id: string | null }[] }).messages;
    expect(thread.slice(0, 3).map((m) => [m.id, m.parent_id])).toEqual([["m1", null], ["m2", "m1"], ["m3", "m2"]]);
    const state = await server.memory.sessionState({ tenantId: "tenantA", userId: "u4", sessionId: "trip" });
    expect(state?.messages.map((m) => m.id)).not.toContain("m2");
    expect(state?.messages.map((m) => m.id)).toContain("m3");
  });

  it("export → forget → import gives the same memory, turns and their events, facts and summaries included", async () => {
    for (const message of ["My name is Anong", "I want to cancel my order 42 now", "My email is anong@example.com"]) {
      expect((await server.call("POST", "/v1/turns", { body: { user_id: "u1", session_id: "live", message } })).status).toBe(200);
    }
    await server.memory.settled();
    const exported = (await (await server.call("GET", "/v1/users/u1/export")).json()) as Record<string, unknown[]>;
    expect(exported.sessions).toHaveLength(3);
    expect(exported.facts?.length).toBeGreaterThan(0);
    expect(exported.events?.length).toBeGreaterThan(0);
    expect(exported.summaries?.length).toBeGreaterThan(0);
    const search = async () => (await server.call("GET", "/v1/users/u1/memory/search?q=Anong%20order%20trip&limit=10")).json();
    const before = await search();

    expect((await server.call("DELETE", "/v1/users/u1")).status).toBe(200);
    expect(((await (await server.call("GET", "/v1/users/u1/export")).json()) as { sessions: unknown[] }).sessions).toEqual([]);
    const exportLimit = await testServer({ persistence: { store: server.memory.persistence.store, checkpointer: server.memory.persistence.checkpointer } }); // the default import limit takes the whole export
    const res = await exportLimit.call("POST", "/v1/users/u1/sessions/import", { body: exported });
    expect(res.status).toBe(200);
    expect(await (await server.call("GET", "/v1/users/u1/export")).json()).toEqual(exported);
    expect(await search()).toEqual(before);
    // Sent again, it is stored once.
    const again = (await (await exportLimit.call("POST", "/v1/users/u1/sessions/import", { body: exported })).json()) as { messages: { imported: number } };
    expect(again.messages.imported).toBe(0);
    await exportLimit.close();
  });
});
