import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createMemoryGraph, type MemoryGraphOptions } from "../../src/app/create-memory-graph.js";
import { manualClock } from "../support/deps.js";
import { createTempDatabase } from "../support/postgres.js";

/** `listSessions` on every long-term engine: the same page from SQLite, Postgres and the in-memory store. */

const engines: [string, () => Promise<{ options: MemoryGraphOptions; cleanup: () => Promise<void> | void }>][] = [
  ["memory", async () => ({ options: { backend: "memory" }, cleanup: () => undefined })],
  [
    "sqlite",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-sessions-"));
      return { options: { backend: "sqlite", sqlitePath: path.join(dir, "m.db") }, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  ],
  [
    "postgres",
    async () => {
      const db = await createTempDatabase();
      return { options: { backend: "postgres", databaseUrl: db.url }, cleanup: db.drop };
    },
  ],
];

describe.each(engines)("listSessions on %s", (_name, open) => {
  it("lists sessions newest first with counts, activity and titles; ids with dots come back as given", async () => {
    const { options, cleanup } = await open();
    const clock = manualClock("2026-11-01T10:00:00.000Z");
    const graph = await createMemoryGraph({ ...options, chatModel: null, now: clock.now, logger: false });
    try {
      const user = { tenantId: "t", userId: "anong@example.com" };
      for (const [sessionId, message] of [["a.1", "First question"], ["b", "Second"], ["a.1", "Third"]] as const) {
        clock.advance(1000);
        await graph.runTurn({ ...user, sessionId, message });
      }
      await graph.runTurn({ ...user, sessionId: "incognito", message: "Not kept", remember: false });
      const page = await graph.listSessions(user);
      expect(page.sessions.map(({ sessionId, title, messageCount }) => ({ sessionId, title, messageCount }))).toEqual([
        { sessionId: "a.1", title: "First question", messageCount: 4 },
        { sessionId: "b", title: "Second", messageCount: 2 },
      ]);
      expect(page.total).toBe(2);
      expect(page.sessions[0]?.firstActivityAt).toBe("2026-11-01T10:00:01.000Z");
      expect(page.sessions[0]?.lastActivityAt).toBe("2026-11-01T10:00:03.000Z");
      await expect(graph.listSessions(user, { limit: 0 })).rejects.toMatchObject({ code: "INVALID_INPUT", field: "limit" });
    } finally {
      await graph.close();
      await cleanup();
    }
  }, 60_000);

  it("dates, counts and titles imported sessions by their messages' own times, whatever order they were written in", async () => {
    const { options, cleanup } = await open();
    const graph = await createMemoryGraph({ ...options, chatModel: null, logger: false });
    try {
      const user = { tenantId: "t", userId: "u" };
      const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 10, minute)).toISOString();
      await graph.importSessions(user, [
        {
          // Written newest first; the assistant spoke first; two user messages said at the same time (the lesser key wins).
          sessionId: "late",
          startedAt: at(0),
          messages: [
            { id: "c", role: "user", text: "Later question", createdAt: at(30) },
            { id: "b2", role: "user", text: "Tied second by key", createdAt: at(20) },
            { id: "b1", role: "user", text: "Tied first by key", createdAt: at(20) },
            { id: "a", role: "assistant", text: "Welcome back", createdAt: at(10) },
          ],
        },
        { sessionId: "replies", startedAt: at(0), messages: [{ id: "r1", role: "assistant", text: "Only the assistant spoke here", createdAt: at(5) }] },
        { sessionId: "early", startedAt: at(0), messages: [{ id: "e1", role: "user", text: "Early", createdAt: at(1) }, { id: "e2", role: "assistant", text: "Hi", createdAt: at(40) }] },
      ]);
      // A message written last but said earliest moves neither the session's place nor its last activity.
      await graph.importSessions(user, [{ sessionId: "late", startedAt: at(0), messages: [{ id: "z", role: "assistant", text: "Said before all", createdAt: at(2) }] }]);
      const page = await graph.listSessions(user);
      expect(page.sessions).toEqual([
        { sessionId: "early", title: "Early", messageCount: 2, firstActivityAt: at(1), lastActivityAt: at(40) },
        { sessionId: "late", title: "Tied first by key", messageCount: 5, firstActivityAt: at(2), lastActivityAt: at(30) },
        { sessionId: "replies", title: "Only the assistant spoke here", messageCount: 1, firstActivityAt: at(5), lastActivityAt: at(5) },
      ]);
      expect((await graph.listSessions(user, { limit: 1, offset: 1 })).sessions.map((s) => s.sessionId)).toEqual(["late"]);
      await graph.deleteMessage({ ...user, sessionId: "replies" }, "r1");
      expect((await graph.listSessions(user)).sessions.map((s) => s.sessionId)).toEqual(["early", "late"]);
    } finally {
      await graph.close();
      await cleanup();
    }
  }, 60_000);
});
