import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { MemoryGraphOptions } from "../../src/app/create-memory-graph.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { REPLAYED_HEADER } from "../../src/server/routes.js";
import { createTempDatabase } from "../support/postgres.js";
import { parseSse, testServer, type TestServer } from "./helpers.js";

/**
 * Imports cannot make memory untrue (issue 31), on SQLite and Postgres, through the HTTP import
 * route: every element of a document is held to the rules of live writes, a refusal is a 400
 * naming the element, and nothing is stored. A turn record stored before imports were checked
 * (its result no turn result) does not break the retries of its message_id.
 */

type Backend = { name: string; make: () => Promise<{ options: MemoryGraphOptions; cleanup: () => Promise<void> }> };

const backends: Backend[] = [
  {
    name: "SQLite",
    make: async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-import-truth-"));
      return { options: { backend: "sqlite", sqlitePath: path.join(dir, "m.db") }, cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: "Postgres",
    make: async () => {
      const db = await createTempDatabase();
      return { options: { backend: "postgres", databaseUrl: db.url }, cleanup: db.drop };
    },
  },
];

const TENANT = "tenantA";
const session = { session_id: "s1", started_at: "2024-01-01T00:00:00Z", messages: [{ id: "m1", role: "user", text: "I live in Chiang Mai" }, { id: "m2", role: "user", text: "I moved to Bangkok" }] };
const fact = (id: string, fields: Record<string, unknown> = {}) => ({
  id,
  key: "city",
  value: "Bangkok",
  text: "city: Bangkok",
  valid_from: "2024-01-01T00:00:01Z",
  valid_to: null,
  source_message_ids: ["m2"],
  session_id: "s1",
  ...fields,
});
const event = (id: string) => ({
  id,
  type: "INFORMATION",
  importance: 0.9,
  intent: "share",
  entities: [],
  language: "en",
  payload: {},
  text: "I moved to Bangkok",
  message_id: "m2",
  session_id: "s1",
  created_at: "2024-01-01T00:00:01Z",
  classified_by: "keywords",
});
const document = ({ facts = [], events = [] }: { facts?: unknown[]; events?: unknown[] } = {}) => ({ version: 1, user_id: "u1", sessions: [session], events, facts, summaries: [] });

describe.each(backends)("imports on $name hold every element to the rules of live writes", ({ make }) => {
  let server: TestServer;
  let cleanup: () => Promise<void>;

  async function open(): Promise<TestServer> {
    const made = await make();
    cleanup = made.cleanup;
    server = await testServer(made.options);
    return server;
  }

  afterEach(async () => {
    await server.close();
    await cleanup();
  });

  const stored = async () => (await server.memory.persistence.store.search([TENANT], { limit: 1000 })).length;
  const importDocument = (body: unknown) => server.call("POST", "/v1/users/u1/sessions/import", { body });
  const turn = (fields: Record<string, unknown> = {}) => server.call("POST", "/v1/turns", { body: { user_id: "u1", session_id: "s1", message: "hello there", ...fields } });

  async function expectRefused(res: Response, error: { code?: string; field: string; message?: unknown }): Promise<void> {
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject(error);
  }

  it.each([
    { name: "an empty result", result: {}, within: "status" },
    { name: "a candidate that is a number", change: { candidate: 5 }, within: "candidate" },
    { name: "usage without its totals", change: { usage: {} }, within: "usage.inputTokens" },
    { name: "a result that ended in ERROR", change: { status: "ERROR" }, within: "status" },
  ])("refuses an idempotency record with $name, naming it, and stores nothing", async ({ result, change, within }) => {
    await open();
    expect((await turn({ message_id: "c1" })).status).toBe(200);
    const exported = (await (await server.call("GET", "/v1/users/u1/export")).json()) as { turns: { result: Record<string, unknown> }[] };
    const [record] = exported.turns;
    record!.result = result ?? { ...record!.result, ...change };
    expect((await server.call("DELETE", "/v1/users/u1")).status).toBe(200);
    // The result is the library's, camelCase: the field within it is in the message, as sent.
    await expectRefused(await importDocument(exported), { code: "INVALID_INPUT", field: "turns.0.result", message: expect.stringContaining(`turns.0.result: ${within}: `) as unknown });
    expect(await stored()).toBe(0);
  });

  it.each([
    { name: "a path in a fact id", facts: [fact("weird/../id")], field: "facts.0.id" },
    { name: "a bidi override in a fact id", facts: [fact("city@m2\u202e")], field: "facts.0.id" },
    { name: "a zero-width space in a fact id", facts: [fact("city@m\u200b2")], field: "facts.0.id" },
    { name: "a zero-width space in a fact key", facts: [fact("city\u200b@m2", { key: "city\u200b" })], field: "facts.0.key" },
    { name: "valid_to before valid_from", facts: [fact("city@m2", { valid_to: "2023-12-31T23:00:00Z" })], field: "facts.0.valid_to" },
    { name: "a message id that breaks the id rules", facts: [fact("city@m2", { source_message_ids: ["m/2"] })], field: "facts.0.source_message_ids.0" },
    { name: "two current versions of one key", facts: [fact("city@m1", { value: "Chiang Mai" }), fact("city@m2")], field: "facts.1.valid_to" },
    { name: "two facts under one id", facts: [fact("city@m2", { valid_to: "2024-01-01T00:00:02Z" }), fact("city@m2", { value: "Hanoi" })], field: "facts.1.id" },
    { name: "two events under one id", events: [event("m2"), event("m2")], field: "events.1.id" },
  ])("refuses $name with a 400 naming it, and stores nothing", async ({ facts, events, field }) => {
    await open();
    await expectRefused(await importDocument(document({ facts, events })), { code: "INVALID_INPUT", field });
    expect(await stored()).toBe(0);
  });

  it("counts the user's stored facts: a second current version of a stored key is refused, a closed one is taken", async () => {
    await open();
    expect((await importDocument(document({ facts: [fact("city@m1", { value: "Chiang Mai", source_message_ids: ["m1"] })] }))).status).toBe(200);
    const before = await stored();
    await expectRefused(await importDocument(document({ facts: [fact("city@m2")] })), { code: "INVALID_INPUT", field: "facts.0.valid_to" });
    expect(await stored()).toBe(before);
    // The import closes the stored version (same id, now with valid_to) and brings the new current one.
    const closed = fact("city@m1", { value: "Chiang Mai", source_message_ids: ["m1"], valid_from: "2024-01-01T00:00:00Z", valid_to: "2024-01-01T00:00:01Z" });
    const res = await importDocument(document({ facts: [closed, fact("city@m2")] }));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ facts: 2 });
    const current = (await (await server.call("GET", "/v1/users/u1/facts?current=true")).json()) as { facts: { id: string }[] };
    expect(current.facts.map((f) => f.id)).toEqual(["city@m2"]);
  });

  it("takes back the ids live writes make (a learned fact, an edit) after export → forget → import", async () => {
    await open();
    expect((await turn({ message: "I live in Chiang Mai" })).status).toBe(200);
    const listed = (await (await server.call("GET", "/v1/users/u1/facts")).json()) as { facts: { id: string }[] };
    const learned = listed.facts[0]!.id;
    const edited = await server.call("PATCH", `/v1/users/u1/facts/${encodeURIComponent(learned)}`, { body: { value: "Bangkok" } });
    expect(edited.status).toBe(200);
    const exported = (await (await server.call("GET", "/v1/users/u1/export")).json()) as { facts: { id: string }[] };
    expect(exported.facts.map((f) => f.id)).toEqual([learned, expect.stringMatching(/@edit-/)]);
    expect((await server.call("DELETE", "/v1/users/u1")).status).toBe(200);
    const res = await importDocument(exported);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ facts: 2 });
  });

  it.each([{ result: {} }, { result: { candidate: 5 } }, { result: "not an object" }])(
    "answers a retry whose stored record's result is no turn result ($result), on both routes, instead of failing",
    async ({ result }) => {
      await open();
      const first = await turn({ message_id: "c1" });
      expect(first.status).toBe(200);
      const answer = ((await first.json()) as { candidate: { text: string } }).candidate.text;
      // As a record imported before imports were checked was stored.
      const namespace = namespaces.turns({ tenantId: TENANT, userId: "u1", sessionId: "s1" });
      const record = (await server.memory.persistence.store.get(namespace, "c1"))!.value;
      await server.memory.persistence.store.put(namespace, "c1", { ...record, result }, false);

      const retry = await turn({ message_id: "c1" });
      expect(retry.status).toBe(200);
      expect(retry.headers.get(REPLAYED_HEADER)).toBe("true");
      expect(((await retry.json()) as { candidate: { text: string } }).candidate.text).toBe(answer);

      const streamed = parseSse(await (await server.call("POST", "/v1/turns/stream", { body: { user_id: "u1", session_id: "s1", message: "hello there", message_id: "c1" } })).text());
      expect(streamed.map((e) => e.event)).toEqual(["token", "result"]);
      expect(streamed[0]?.data).toEqual({ text: answer });

      // Another text under the same key is still a conflict: the record's request is read.
      expect((await turn({ message_id: "c1", message: "something else" })).status).toBe(409);
      // An export leaves the unreadable record out, so export → forget → import still goes through.
      await server.memory.persistence.store.put(namespace, "c1", { ...record, result }, false);
      const exported = (await (await server.call("GET", "/v1/users/u1/export")).json()) as { turns: unknown[] };
      expect(exported.turns).toEqual([]);
      expect((await server.call("DELETE", "/v1/users/u1")).status).toBe(200);
      expect((await importDocument(exported)).status).toBe(200);
    },
  );
});
