import { afterEach, describe, expect, it } from "vitest";
import { KEY_B, testServer, type TestServer } from "./helpers.js";

/** GET /v1/users and GET /v1/users/{user_id}: the key's tenant's users only; an unknown user is a 404, an empty listing is not. */
describe("the users routes", () => {
  let server: TestServer;
  afterEach(() => server.close());

  it("lists the key's tenant's users with counts, narrows by prefix, and tells an unknown user from one with no facts", async () => {
    server = await testServer();
    for (const [userId, message] of [["anong", "My name is Anong"], ["bo", "Hello"], ["anna", "Hi"]] as const) {
      expect((await server.call("POST", "/v1/turns", { body: { user_id: userId, session_id: "s1", message } })).status).toBe(200);
    }
    await server.memory.runTurn({ tenantId: "tenantB", userId: "someone-else", sessionId: "s1", message: "Hi" });
    await server.memory.settled();
    const res = await server.call("GET", "/v1/users?limit=2");
    expect(res.status).toBe(200);
    const page = (await res.json()) as { users: { user_id: string; session_count: number; message_count: number; fact_count: number }[]; total: number; next_offset: number | null };
    expect(page.total).toBe(3);
    expect(page.next_offset).toBe(2);
    expect(page.users).toHaveLength(2);
    expect(page.users.every((u) => u.session_count === 1 && u.message_count === 2)).toBe(true);
    const an = (await (await server.call("GET", "/v1/users?prefix=an")).json()) as { users: { user_id: string }[] };
    expect(an.users.map((u) => u.user_id).sort()).toEqual(["anna", "anong"]);
    const other = (await (await server.call("GET", "/v1/users", { key: KEY_B })).json()) as { users: { user_id: string }[] };
    expect(other.users.map((u) => u.user_id)).toEqual(["someone-else"]);

    const known = await server.call("GET", "/v1/users/bo");
    expect(known.status).toBe(200);
    expect(await known.json()).toMatchObject({ user_id: "bo", session_count: 1, message_count: 2, fact_count: 0 });
    // Where the other routes answer an empty list for both, this one tells them apart.
    expect((await server.call("GET", "/v1/users/nobody/facts")).status).toBe(200);
    const unknown = await server.call("GET", "/v1/users/nobody");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: "USER_NOT_FOUND" } });
    expect((await server.call("GET", "/v1/users?limit=0")).status).toBe(400);
    expect((await server.call("GET", "/v1/users?sort=name")).status).toBe(400);
  });
});
