import { afterEach, describe, expect, it } from "vitest";
import { createMemoryGraph } from "../../src/app/create-memory-graph.js";
import { manualClock } from "../support/deps.js";
import { RecordingChatModel } from "../support/models.js";
import { testServer, type TestServer } from "./helpers.js";

/** GET /v1/users/{id}/sessions, and `listSessions` of the library. */

let server: TestServer;
afterEach(async () => server.close());

type SessionsBody = {
  sessions: { session_id: string; title: string; message_count: number; first_activity_at: string; last_activity_at: string }[];
  total: number;
  next_offset: number | null;
  error?: { field: string };
};
const list = async (query = "", user = "u1") => {
  const res = await server.call("GET", `/v1/users/${user}/sessions${query}`);
  return { status: res.status, body: (await res.json()) as SessionsBody };
};

describe("GET /v1/users/{user_id}/sessions", () => {
  it("lists a user's sessions newest first, with a title from the first user message, counts and activity, paged", async () => {
    const clock = manualClock("2026-11-01T10:00:00.000Z");
    server = await testServer({ now: clock.now });
    const say = async (session: string, message: string) => {
      clock.advance(60_000);
      await server.call("POST", "/v1/turns", { body: { user_id: "u1", session_id: session, message } });
    };
    await say("trip", "Planning a trip to Chiang Mai in December, where should I stay for a week with two kids?");
    await say("cake", "How do I bake a chocolate cake?");
    await say("trip", "And what about food?");
    await say("tax", "When is the tax deadline?");
    await server.call("POST", "/v1/turns", { body: { user_id: "u2", session_id: "other", message: "Not u1's" } });

    const first = await list("?limit=2");
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(3);
    expect(first.body.sessions.map((s) => s.session_id)).toEqual(["tax", "trip"]);
    expect(first.body.next_offset).toBe(2);
    const trip = first.body.sessions[1]!;
    expect(trip.message_count).toBe(4);
    expect(trip.title).toMatch(/^Planning a trip to Chiang Mai in December, where should I…$/);
    expect(trip.title.length).toBeLessThanOrEqual(60);
    expect(trip.first_activity_at).toBe("2026-11-01T10:01:00.000Z");
    expect(trip.last_activity_at).toBe("2026-11-01T10:03:00.000Z");
    const rest = await list("?limit=2&offset=2");
    expect(rest.body.sessions.map((s) => s.session_id)).toEqual(["cake"]);
    expect(rest.body.next_offset).toBeNull();
    expect((await list("", "nobody")).body).toEqual({ user_id: "nobody", sessions: [], total: 0, next_offset: null });

    await server.call("DELETE", "/v1/sessions/cake?user_id=u1");
    expect((await list()).body.sessions.map((s) => s.session_id)).toEqual(["tax", "trip"]);
  });

  it.each([
    { query: "?limit=0", field: "limit" },
    { query: "?limit=101", field: "limit" },
    { query: "?limit=ten", field: "limit" },
    { query: "?offset=-1", field: "offset" },
    { query: "?page=2", field: "page" },
  ])("rejects $query with a 400 naming $field", async ({ query, field }) => {
    server = await testServer();
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body.error?.field).toBe(field);
  });
});

describe("listSessions (library)", () => {
  it("titles a session with the model when sessionTitles is on, once per session; a forgotten session's title goes with it", async () => {
    const graph = await createMemoryGraph({ backend: "memory", chatModel: new RecordingChatModel(["Sure, here is a plan."]), classifierModel: null, summaryModel: null, sessionTitles: false, logger: false });
    await graph.runTurn({ tenantId: "t", userId: "u", sessionId: "s", message: "Plan my trip to Chiang Mai" });
    await graph.settled();
    expect((await graph.listSessions({ tenantId: "t", userId: "u" })).sessions[0]?.title).toBe("Plan my trip to Chiang Mai");
    await graph.close();

    const titler = new RecordingChatModel(["Sure, here is a plan.", '"Family Trip To Chiang Mai."', "Food: khao soi."]);
    const titled = await createMemoryGraph({ backend: "memory", chatModel: titler, classifierModel: null, sessionTitles: true, logger: false, limits: { summaryInterval: 100 } });
    await titled.runTurn({ tenantId: "t", userId: "u", sessionId: "s", message: "Plan my trip to Chiang Mai" });
    await titled.settled();
    await titled.runTurn({ tenantId: "t", userId: "u", sessionId: "s", message: "What should we eat?" });
    await titled.settled();
    expect(titler.prompts).toHaveLength(3); // two replies and one title
    const page = await titled.listSessions({ tenantId: "t", userId: "u" }, { limit: 5 });
    expect(page.sessions).toEqual([expect.objectContaining({ sessionId: "s", title: "Family Trip To Chiang Mai", messageCount: 4 })]);
    await titled.forgetSession({ tenantId: "t", userId: "u", sessionId: "s" });
    expect(await titled.persistence.store.search(["t"], { limit: 10 })).toEqual([]);
    await titled.close();
  });
});
