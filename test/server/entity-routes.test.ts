import { afterEach, describe, expect, it } from "vitest";
import { KEY_B, testServer, type TestServer } from "./helpers.js";

/** Priya moves from Pune to New Delhi, in two sessions. */
const SESSIONS = [
  { sessionId: "s1", startedAt: "2024-01-05T10:00:00.000Z", messages: [{ id: "m1", role: "user" as const, text: "My sister Priya moved to Pune." }] },
  { sessionId: "s2", startedAt: "2024-06-01T10:00:00.000Z", messages: [{ id: "n1", role: "user" as const, text: "Now my sister Priya moved to New Delhi." }] },
];

/** GET /v1/users/{user_id}/entities and …/entities/{entity}: the user's entity graph over HTTP, the key's tenant's only. */
describe("the entity routes", () => {
  let server: TestServer;
  afterEach(() => server.close());

  it("lists a user's entities (searchable, paged) and reads one with its relations over time and their sources", async () => {
    server = await testServer();
    await server.memory.importSessions({ tenantId: "tenantA", userId: "ravi" }, SESSIONS);
    const res = await server.call("GET", "/v1/users/ravi/entities?limit=100");
    expect(res.status).toBe(200);
    const list = (await res.json()) as { entities: { key: string; kind: string; mentions: number; aliases: string[]; updated_at: string }[] };
    expect(list.entities.map((e) => e.key)).toEqual(expect.arrayContaining(["priya", "pune", "new delhi"]));
    expect(list.entities.find((e) => e.key === "priya")).toMatchObject({ kind: "person", mentions: 2, aliases: ["sister"] });
    const found = (await (await server.call("GET", "/v1/users/ravi/entities?query=delhi")).json()) as { entities: { key: string }[] };
    expect(found.entities.map((e) => e.key)).toEqual(["new delhi"]);
    expect(((await (await server.call("GET", "/v1/users/ravi/entities?limit=1")).json()) as { entities: unknown[] }).entities).toHaveLength(1);

    const one = await server.call("GET", `/v1/users/ravi/entities/${encodeURIComponent("Priya")}`);
    expect(one.status).toBe(200);
    const priya = (await one.json()) as { relations: { type: string; to: string; valid_to: string | null; sources: { session_id: string; message_id: string }[] }[] };
    expect(priya.relations.filter((r) => r.type === "lives_in")).toEqual([
      expect.objectContaining({ to: "pune", valid_to: "2024-06-01T10:00:00.000Z", sources: [{ session_id: "s1", message_id: "m1" }] }),
      expect.objectContaining({ to: "new delhi", valid_to: null, sources: [{ session_id: "s2", message_id: "n1" }] }),
    ]);
    expect((await server.call("GET", `/v1/users/ravi/entities/${encodeURIComponent("new delhi")}`)).status).toBe(200);

    const missing = await server.call("GET", "/v1/users/ravi/entities/nobody");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: "NOT_FOUND" } });
    // Another tenant's key sees none of it.
    expect(await (await server.call("GET", "/v1/users/ravi/entities", { key: KEY_B })).json()).toEqual({ entities: [] });
    expect((await server.call("GET", "/v1/users/ravi/entities?limit=0")).status).toBe(400);
    expect((await server.call("GET", "/v1/users/ravi/entities?sort=name")).status).toBe(400);
  });

  it("forgets an entity: the next turn's memory and the session's thread no longer hold its name; another tenant's key deletes nothing", async () => {
    server = await testServer();
    const turn = (message: string, message_id: string) => server.call("POST", "/v1/turns", { body: { user_id: "ravi", session_id: "s1", message, message_id } });
    await turn("My sister Priya moved to Pune last week.", "m1");
    await turn("I am visiting my sister Priya in Pune soon.", "m2");
    const before = (await (await turn("When do I see Priya in Pune?", "m3")).json()) as { memory_context: { text: string } };
    expect(before.memory_context.text).toContain("Priya");

    const other = await server.call("DELETE", "/v1/users/ravi/entities/priya", { key: KEY_B });
    expect(await other.json()).toMatchObject({ deleted: { entities: 0 } });
    expect((await server.call("GET", "/v1/users/ravi/entities/priya")).status).toBe(200);

    const res = await server.call("DELETE", "/v1/users/ravi/entities/Priya");
    expect(res.status).toBe(200);
    const { deleted } = (await res.json()) as { deleted: { entities: number; redacted_messages: number } };
    expect(deleted.entities).toBe(1);
    // The three user messages, and the replies that repeated the name.
    expect(deleted.redacted_messages).toBeGreaterThanOrEqual(3);
    expect((await server.call("GET", "/v1/users/ravi/entities/priya")).status).toBe(404);
    const after = await (await turn("Tell me about my trip to Pune.", "m4")).text();
    expect(after).not.toMatch(/priya/i);
    const thread = await (await server.call("GET", "/v1/sessions/s1/messages?user_id=ravi")).text();
    expect(thread).toContain("[removed]");
    expect(thread).not.toMatch(/priya/i);
    const again = await server.call("DELETE", "/v1/users/ravi/entities/Priya");
    expect(await again.json()).toMatchObject({ deleted: { entities: 0, redacted_messages: 0 } });
  });

  it("deletes one relation: the value it had superseded is current again; another tenant's key deletes nothing", async () => {
    server = await testServer();
    await server.memory.importSessions({ tenantId: "tenantA", userId: "ravi" }, SESSIONS);
    const path = `/v1/users/ravi/entities/Priya/relations?type=lives_in&to=${encodeURIComponent("New Delhi")}`;
    expect(await (await server.call("DELETE", path, { key: KEY_B })).json()).toEqual({ user_id: "ravi", deleted: { relations: 0, restored_relations: 0 } });
    const res = await server.call("DELETE", path);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ user_id: "ravi", deleted: { relations: 1, restored_relations: 1 } });
    const priya = (await (await server.call("GET", "/v1/users/ravi/entities/priya")).json()) as { relations: { type: string; to: string; valid_to: string | null }[] };
    expect(priya.relations.filter((r) => r.type === "lives_in").map((r) => [r.to, r.valid_to])).toEqual([["pune", null]]);
    expect((await server.call("DELETE", "/v1/users/ravi/entities/Priya/relations?to=pune")).status).toBe(400);
  });
});
