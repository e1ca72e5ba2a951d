import { afterEach, describe, expect, it } from "vitest";
import { KEY_B, testServer, type TestServer } from "./helpers.js";

describe("per-item memory routes", () => {
  let server: TestServer;
  afterEach(() => server.close());

  const turn = (message: string, message_id: string) => server.call("POST", "/v1/turns", { body: { user_id: "u1", session_id: "s1", message, message_id } });

  it("edits a fact over HTTP, the next turn's memory context shows it, and its record says why; another tenant's key reaches none of it", async () => {
    server = await testServer();
    await turn("I live in Bangkok", "m1");
    const listed = (await (await server.call("GET", "/v1/users/u1/facts?current=true")).json()) as { facts: { id: string; value: string }[] };
    const bangkok = listed.facts.find((fact) => fact.value === "Bangkok")!;
    const path = `/v1/users/u1/facts/${encodeURIComponent(bangkok.id)}`;

    expect((await server.call("GET", path, { key: KEY_B })).status).toBe(404);
    expect((await server.call("PATCH", path, { key: KEY_B, body: { value: "Paris" } })).status).toBe(404);
    expect((await server.call("DELETE", path, { key: KEY_B })).status).toBe(200);
    expect((await server.call("GET", path)).status).toBe(200); // still there for its own tenant

    const edited = await server.call("PATCH", path, { body: { value: "Chiang Mai", pinned: true } });
    expect(edited.status).toBe(200);
    const { fact } = (await edited.json()) as { fact: { id: string; value: string; pinned: boolean; source: string } };
    expect(fact).toMatchObject({ value: "Chiang Mai", pinned: true, source: "edit" });
    const history = (await (await server.call("GET", `/v1/users/u1/facts/${encodeURIComponent(fact.id)}`)).json()) as { history: { value: string; superseded_by: string | null }[] };
    expect(history.history.map((version) => [version.value, version.superseded_by])).toEqual([["Bangkok", fact.id], ["Chiang Mai", null]]);
    const stale = await server.call("PATCH", path, { body: { value: "Krabi" } });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ error: { code: "FACT_STALE" } });

    const next = (await (await turn("where do I live?", "m2")).json()) as { memory_context: { text: string } };
    expect(next.memory_context.text).toContain("Chiang Mai");
    // The facts section holds the edit alone (the event still quotes what was said then).
    expect(next.memory_context.text.split("## Important")[0]).not.toContain("Bangkok");
    const context = (await (await server.call("GET", "/v1/users/u1/sessions/s1/messages/m2/context")).json()) as { context: { shown: { facts: string[] } } };
    expect(context.context.shown.facts).toEqual([fact.id]);
    expect((await server.call("GET", "/v1/users/u1/sessions/s1/messages/m2/context", { key: KEY_B })).status).toBe(404);
  });
});

describe("deleting a fact over HTTP", () => {
  let server: TestServer;
  afterEach(() => server.close());

  const turn = (message: string, message_id: string) => server.call("POST", "/v1/turns", { body: { user_id: "u1", session_id: "s1", message, message_id } });
  const facts = async () => ((await (await server.call("GET", "/v1/users/u1/facts")).json()) as { facts: { id: string; value: string; valid_to: string | null }[] }).facts;

  it("takes one version by default, every version with versions=all, and refuses any other versions with a 400 that deletes nothing", async () => {
    server = await testServer();
    await turn("I live in Rotterdam", "m1");
    await turn("I moved to Utrecht", "m2");
    const rotterdam = (await facts()).find((fact) => fact.value === "Rotterdam")!;
    const utrecht = (await facts()).find((fact) => fact.value === "Utrecht")!;

    const bad = await server.call("DELETE", `/v1/users/u1/facts/${encodeURIComponent(utrecht.id)}?versions=some`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { field: "versions" } });
    expect(await facts()).toHaveLength(2);

    const one = await server.call("DELETE", `/v1/users/u1/facts/${encodeURIComponent(rotterdam.id)}`);
    expect(await one.json()).toMatchObject({ user_id: "u1", deleted: { facts: 1, redacted_messages: 1 } });
    expect((await facts()).map((fact) => [fact.value, fact.valid_to])).toEqual([["Utrecht", null]]);
    const message = (await (await server.call("GET", "/v1/users/u1/sessions/s1/messages/m1")).json()) as { message: { text: string; redacted?: boolean } };
    expect(message.message).toMatchObject({ text: "I live in [removed]", redacted: true });

    const all = await server.call("DELETE", `/v1/users/u1/facts/${encodeURIComponent(utrecht.id)}?versions=all`);
    expect(await all.json()).toMatchObject({ deleted: { facts: 1 } });
    expect(await facts()).toEqual([]);
    const next = (await (await turn("where do I live?", "m3")).json()) as { memory_context: { text: string } };
    expect(next.memory_context.text).not.toMatch(/Rotterdam|Utrecht/);
  });
});
