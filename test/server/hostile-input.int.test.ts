import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { MemoryGraphOptions } from "../../src/app/create-memory-graph.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { REPLAYED_HEADER } from "../../src/server/routes.js";
import { createTempDatabase } from "../support/postgres.js";
import { testServer, type TestServer } from "./helpers.js";

/**
 * Hostile input against the service on every engine (memory, SQLite, Postgres): the same answer
 * everywhere, a 400 naming the field, and nothing stored on any refusal.
 */

type Backend = { name: string; make: () => Promise<{ options: MemoryGraphOptions; fail?: (key: string) => Promise<void>; cleanup: () => Promise<void> }> };

const backends: Backend[] = [
  { name: "memory", make: async () => ({ options: { backend: "memory" }, cleanup: async () => undefined }) },
  {
    name: "SQLite",
    make: async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-hostile-"));
      const file = path.join(dir, "m.db");
      return {
        options: { backend: "sqlite", sqlitePath: file },
        // A real fault of the engine: a trigger refuses the write of one key.
        fail: async (key) => {
          const db = new Database(file);
          db.exec(`CREATE TRIGGER refuse_${key} BEFORE INSERT ON store_items WHEN NEW.key = '${key}' BEGIN SELECT RAISE(ABORT, 'refused'); END`);
          db.close();
        },
        cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  {
    name: "Postgres",
    make: async () => {
      const db = await createTempDatabase();
      return {
        options: { backend: "postgres", databaseUrl: db.url },
        fail: async (key) => {
          const client = new pg.Client({ connectionString: db.url });
          await client.connect();
          await client.query(`CREATE FUNCTION refuse_${key}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$`);
          const table = (await client.query("SELECT table_name FROM information_schema.tables WHERE table_name LIKE '%items' AND table_schema = current_schema() LIMIT 1")).rows[0] as { table_name: string };
          await client.query(`CREATE TRIGGER refuse_${key} BEFORE INSERT ON ${table.table_name} FOR EACH ROW WHEN (NEW.key = '${key}') EXECUTE FUNCTION refuse_${key}()`);
          await client.end();
        },
        cleanup: db.drop,
      };
    },
  },
];

const session = (id: string, messages: { id: string; role: "user" | "assistant"; text: string }[]) => ({ session_id: id, started_at: "2024-01-01T00:00:00Z", messages });
const turn = (fields: Record<string, unknown> = {}) => ({ user_id: "u1", session_id: "s1", message: "hello there", ...fields });

describe.each(backends)("hostile input on $name", ({ make }) => {
  let server: TestServer;
  let fail: ((key: string) => Promise<void>) | undefined;
  let cleanup: () => Promise<void>;

  async function open(): Promise<TestServer> {
    const made = await make();
    fail = made.fail;
    cleanup = made.cleanup;
    server = await testServer(made.options);
    return server;
  }

  afterEach(async () => {
    await server.close();
    await cleanup();
  });

  const stored = async () => (await server.memory.persistence.store.search(["tenantA"], { limit: 1000 })).length;

  async function expectRefused(res: Response, status: number, error: { code?: string; field?: unknown }): Promise<void> {
    expect(res.status).toBe(status);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject(error);
  }

  it("answers NUL and lone surrogates with 400 naming the field, in a turn, an import and a query, and stores nothing", async () => {
    await open();
    await expectRefused(await server.call("POST", "/v1/turns", { body: turn({ message: "a\u0000b" }) }), 400, { code: "INVALID_TEXT", field: "message" });
    await expectRefused(await server.call("POST", "/v1/turns", { body: '{"user_id":"u1","session_id":"s1","message":"a\\ud800b"}' }), 400, {
      code: "INVALID_TEXT",
      field: "message",
    });
    await expectRefused(await server.call("POST", "/v1/turns", { body: turn({ metadata: { ["k\u0000"]: 1 } }) }), 400, { code: "INVALID_TEXT", field: "metadata.k\u0000" });
    const imported = [session("s1", [{ id: "m1", role: "user", text: "fine" }]), session("s2", [{ id: "m2", role: "user", text: "x\udc00" }])];
    await expectRefused(await server.call("POST", "/v1/users/u1/sessions/import", { body: imported }), 400, { code: "INVALID_TEXT", field: "1.messages.0.text" });
    await expectRefused(await server.call("GET", "/v1/users/u1/memory/search?q=a%00b"), 400, { code: "INVALID_TEXT", field: "q" });
    expect(await stored()).toBe(0);
  });

  it("refuses JSON over the structure bound with 400 naming the field and the bound, and stores nothing", async () => {
    await open();
    for (const levels of [1_000, 5_000]) {
      const event = { id: "m1", type: "INQUIRY", importance: 0.9, intent: "x", entities: [], language: "en", payload: "PAYLOAD", text: "hi", message_id: "m1", session_id: "s1", created_at: "2024-01-01T00:00:00Z", classified_by: "keywords" };
      const document = { version: 1, user_id: "u1", sessions: [session("s1", [{ id: "m1", role: "user", text: "hi" }])], events: [event], facts: [], summaries: [] };
      // Written out by hand: JSON.stringify itself recurses.
      const body = JSON.stringify(document).replace('"PAYLOAD"', `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`);
      const res = await server.call("POST", "/v1/users/u1/sessions/import", { body });
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: { code: string; field: string; message: string } };
      expect(error.code).toBe("INPUT_TOO_COMPLEX");
      expect(error.field.startsWith("events.0.payload.a.a")).toBe(true);
      expect(error.message).toContain("deeper than 32 levels");
    }
    await expectRefused(await server.call("POST", "/v1/turns", { body: turn({ metadata: Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`k${i}`, i])) }) }), 400, {
      code: "INPUT_TOO_COMPLEX",
      field: "metadata",
    });
    await expectRefused(await server.call("POST", "/v1/turns", { body: '{"user_id":"u1","session_id":"s1","message":"hi","metadata":{"n":1e999}}' }), 400, {
      code: "INVALID_INPUT",
      field: "metadata.n",
    });
    expect(await stored()).toBe(0);
  });

  it("stores an import whole or not at all: a write that fails part-way leaves nothing", async ({ skip }) => {
    await open();
    if (!fail) return skip();
    await fail("boom");
    const imported = [session("s1", [{ id: "m1", role: "user", text: "first session" }]), session("s2", [{ id: "boom", role: "user", text: "second session" }])];
    const res = await server.call("POST", "/v1/users/u1/sessions/import", { body: imported });
    expect(res.status).toBe(500);
    expect(await stored()).toBe(0);
    // A large import (written in slices on SQLite) too.
    const many = Array.from({ length: 300 }, (_, i) => ({ id: i === 299 ? "boom" : `m${i}`, role: "user" as const, text: `message ${i}` }));
    expect((await server.call("POST", "/v1/users/u1/sessions/import", { body: [session("s3", many)] })).status).toBe(500);
    expect(await stored()).toBe(0);
    expect((await server.call("POST", "/v1/users/u1/sessions/import", { body: [session("s3", many.slice(0, 299))] })).status).toBe(200);
    expect((await server.call("GET", "/v1/users/u1/memory/search?q=message")).status).toBe(200);
    expect(await stored()).toBe(299);
  });

  it("refuses an export imported into another user's path unless as_user says so", async () => {
    await open();
    expect((await server.call("POST", "/v1/turns", { body: turn() })).status).toBe(200);
    const exported = (await (await server.call("GET", "/v1/users/u1/export")).json()) as Record<string, unknown>;
    await expectRefused(await server.call("POST", "/v1/users/u2/sessions/import", { body: exported }), 400, { code: "IMPORT_USER_MISMATCH", field: "user_id" });
    await expectRefused(await server.call("POST", "/v1/users/u2/sessions/import?as_user=u3", { body: exported }), 400, { code: "IMPORT_USER_MISMATCH", field: "as_user" });
    expect(await server.memory.persistence.store.search(namespaces.user({ tenantId: "tenantA", userId: "u2" }), { limit: 10 })).toEqual([]);
    expect((await server.call("POST", "/v1/users/u2/sessions/import?as_user=u2", { body: exported })).status).toBe(200);
  });

  it("replays a message_id after export → forget → import", async () => {
    await open();
    const first = await server.call("POST", "/v1/turns", { body: turn({ message_id: "c1" }) });
    const answer = ((await first.json()) as { reply: unknown }).reply;
    const exported = await (await server.call("GET", "/v1/users/u1/export")).json();
    expect((await server.call("DELETE", "/v1/users/u1")).status).toBe(200);
    expect((await server.call("POST", "/v1/users/u1/sessions/import", { body: exported })).status).toBe(200);
    const retry = await server.call("POST", "/v1/turns", { body: turn({ message_id: "c1" }) });
    expect(retry.status).toBe(200);
    expect(retry.headers.get(REPLAYED_HEADER)).toBe("true");
    expect(((await retry.json()) as { reply: unknown }).reply).toEqual(answer);
  });

  it("refuses records pointing at sessions or messages nobody holds, and a repeated import counts what it wrote", async () => {
    await open();
    const base = { version: 1, user_id: "u1", sessions: [session("s1", [{ id: "m1", role: "user", text: "my name is Anong" }])], events: [], summaries: [] };
    const fact = (source: string, sessionId = "s1") => ({
      id: `name@${source}`,
      key: "name",
      value: "Mallory",
      text: "name: Mallory",
      valid_from: "2024-01-01T00:00:00Z",
      valid_to: null,
      source_message_ids: [source],
      session_id: sessionId,
    });
    await expectRefused(await server.call("POST", "/v1/users/u1/sessions/import", { body: { ...base, facts: [fact("ghost")] } }), 400, {
      code: "UNKNOWN_REFERENCE",
      field: "facts.0.source_message_ids.0",
    });
    await expectRefused(await server.call("POST", "/v1/users/u1/sessions/import", { body: { ...base, facts: [fact("m1", "nowhere")] } }), 400, {
      code: "UNKNOWN_REFERENCE",
      field: "facts.0.source_message_ids.0",
    });
    expect(await stored()).toBe(0);
    const good = { ...base, facts: [fact("m1")] };
    const once = (await (await server.call("POST", "/v1/users/u1/sessions/import", { body: good })).json()) as Record<string, unknown>;
    expect(once).toMatchObject({ messages: { imported: 1, skipped: 0 }, facts: 1 });
    const again = (await (await server.call("POST", "/v1/users/u1/sessions/import", { body: good })).json()) as Record<string, unknown>;
    expect(again).toMatchObject({ messages: { imported: 0, skipped: 1 }, facts: 0, events: 0, summaries: 0 });
  });

  it("exports messages in write order after a regeneration", async () => {
    await open();
    expect((await server.call("POST", "/v1/turns", { body: turn({ message_id: "q1" }) })).status).toBe(200);
    expect((await server.call("POST", "/v1/turns", { body: turn({ message: undefined, parent_message_id: "q1" }) })).status).toBe(200);
    const exported = (await (await server.call("GET", "/v1/users/u1/export")).json()) as { sessions: { messages: { id: string; role: string; parent_id: string | null }[] }[] };
    const messages = exported.sessions[0]?.messages ?? [];
    expect(messages[0]).toMatchObject({ id: "q1", role: "user" });
    expect(messages.slice(1).every((m) => m.role === "assistant" && m.parent_id === "q1")).toBe(true);
  });

  it("refuses NUL in every query parameter, on routes that read a query and routes that do not, and stores nothing", async () => {
    await open();
    const metadata = (json: string) => `/v1/users/u1/memory/items?q=x&metadata=${encodeURIComponent(json)}`;
    await expectRefused(await server.call("GET", metadata('{"k":"a\\u0000b"}')), 400, { code: "INVALID_TEXT", field: "metadata.k" });
    await expectRefused(await server.call("GET", metadata('{"k":"\\ud800"}')), 400, { code: "INVALID_TEXT", field: "metadata.k" });
    await expectRefused(await server.call("GET", `${metadata("{}")}%00`), 400, { code: "INVALID_TEXT", field: "metadata" });
    await expectRefused(await server.call("POST", "/v1/turns?trace=%00", { body: turn() }), 400, { code: "INVALID_TEXT", field: "trace" });
    await expectRefused(await server.call("POST", "/v1/turns/stream?trace=a%00", { body: turn() }), 400, { code: "INVALID_TEXT", field: "trace" });
    await expectRefused(await server.call("PATCH", "/v1/users/u1/facts/f1?x=%00", { body: { value: "v" } }), 400, { code: "INVALID_TEXT", field: "x" });
    await expectRefused(await server.call("GET", "/healthz?probe=%00"), 400, { code: "INVALID_TEXT", field: "probe" });
    expect(await stored()).toBe(0);
  });

  it.each([
    { path: "/v1/users/u1/facts/a%00", field: "fact_id" },
    { path: "/v1/users/u1/events/%00", field: "event_id" },
    { path: "/v1/users/u1/summaries/s%00x", field: "summary_id" },
    { path: "/v1/users/u1/sessions/s1/messages/m%00", field: "message_id" },
    { path: "/v1/users/u1/sessions/s1/messages/m1%00/context", field: "message_id" },
    { path: "/inspector/inspector.js%00", field: "file" },
  ])("answers a NUL in the path parameter of $path with 400 INVALID_ID naming $field, never echoing it", async ({ path: url, field }) => {
    await open();
    for (const method of url.startsWith("/inspector") || url.endsWith("/context") ? ["GET"] : ["GET", "DELETE"]) {
      const res = await server.call(method, url);
      const text = await res.text();
      expect(res.status).toBe(400);
      expect(JSON.parse(text)).toMatchObject({ error: { code: "INVALID_ID", field } });
      expect(text).not.toContain("\\u0000");
    }
    expect(await stored()).toBe(0);
  });

  it("answers a path no route takes with a 404 that names it as sent, never echoing a NUL", async () => {
    await open();
    for (const url of ["/v1/users/u1/facts/a%00/more", "/v1/nothing%00"]) {
      const res = await server.call("GET", url);
      const text = await res.text();
      expect(res.status).toBe(404);
      expect(text).not.toContain("\\u0000");
      expect(text).toContain(url);
    }
  });

  it.each([
    { name: "a turn naming two users", body: '{"user_id":"alice","user_id":"bob","session_id":"s1","message":"hi"}', field: "user_id" },
    { name: "a turn's metadata, nested", body: '{"user_id":"u1","session_id":"s1","message":"hi","metadata":{"a":{"role":"x","role":"y"}}}', field: "metadata.a.role" },
    { name: "a key written once plainly and once escaped", body: '{"user_id":"u1","session_id":"s1","message":"hi","\\u006dessage":"bye"}', field: "message" },
  ])("refuses duplicate keys in $name with 400 DUPLICATE_KEY naming the key, and stores nothing", async ({ body, field }) => {
    await open();
    for (const url of ["/v1/turns", "/v1/turns/stream"]) await expectRefused(await server.call("POST", url, { body }), 400, { code: "DUPLICATE_KEY", field });
    expect(await stored()).toBe(0);
  });

  it("refuses duplicate keys anywhere in an import and in a correction, and stores nothing", async () => {
    await open();
    const imported = JSON.stringify([session("s1", [{ id: "m1", role: "user", text: "fine" }])]).replace('"text":"fine"', '"text":"fine","text":"other"');
    await expectRefused(await server.call("POST", "/v1/users/u1/sessions/import", { body: imported }), 400, { code: "DUPLICATE_KEY", field: "0.messages.0.text" });
    await expectRefused(await server.call("PATCH", "/v1/users/u1/facts/f1", { body: '{"value":"a","value":"b"}' }), 400, { code: "DUPLICATE_KEY", field: "value" });
    expect(await stored()).toBe(0);
    // The same key in sibling objects is no duplicate.
    expect((await server.call("POST", "/v1/turns", { body: '{"user_id":"u1","session_id":"s1","message":"hi","metadata":{"a":{"k":1},"b":{"k":2}}}' })).status).toBe(200);
  });

  it.each([" u1", "u1 ", "u\u202e1", "u\u200b1", "e\u0301", "s1\uFE0F", "s1\u{E0100}", "s1\u3164", "\u115F", "s\u034F1", "\u0301", "\u0301u1"])("refuses the look-alike id %j in a path and a body", async (id) => {
    await open();
    await expectRefused(await server.call("GET", `/v1/users/${encodeURIComponent(id)}/memory`), 400, { code: "INVALID_ID", field: "user_id" });
    await expectRefused(await server.call("POST", "/v1/turns", { body: turn({ user_id: id }) }), 400, { field: "user_id" });
    await expect(server.memory.runTurn({ tenantId: "tenantA", userId: id, sessionId: "s1", message: "hi" })).rejects.toMatchObject({ kind: "user", field: "userId" });
    expect(await stored()).toBe(0);
  });
});
