import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createMemoryGraph, type MemoryGraphOptions } from "../../src/app/create-memory-graph.js";
import { manualClock } from "../support/deps.js";
import { createTempDatabase } from "../support/postgres.js";

/** `listUsers` and `getUser` on every long-term engine: the same pages from SQLite, Postgres and the in-memory store. */

const engines: [string, () => Promise<{ options: MemoryGraphOptions; cleanup: () => Promise<void> | void }>][] = [
  ["memory", async () => ({ options: { backend: "memory" }, cleanup: () => undefined })],
  [
    "sqlite",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-users-"));
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

describe.each(engines)("listUsers on %s", (_name, open) => {
  it("lists a tenant's users newest activity first with counts, pages and narrows by id prefix; an unknown user is USER_NOT_FOUND", async () => {
    const { options, cleanup } = await open();
    const clock = manualClock("2026-11-01T10:00:00.000Z");
    const graph = await createMemoryGraph({ ...options, chatModel: null, now: clock.now, logger: false });
    try {
      const turn = async (userId: string, sessionId: string, message: string) => {
        clock.advance(1000);
        await graph.runTurn({ tenantId: "t", userId, sessionId, message });
      };
      await turn("anong@example.com", "s1", "My name is Anong");
      await turn("anong@example.com", "s2", "I live in Bangkok");
      await turn("bo", "s1", "Hello there");
      await turn("anna", "s1", "I like jazz");
      await turn("other-tenant-user", "s1", "Hi");
      await graph.runTurn({ tenantId: "elsewhere", userId: "zed", sessionId: "s1", message: "Not this tenant" });
      await turn("anong@example.com", "s1", "I moved to Chiang Mai");
      await graph.settled();

      const page = await graph.listUsers("t");
      expect(page.users.map((u) => u.userId)).toEqual(["anong@example.com", "other-tenant-user", "anna", "bo"]);
      expect(page.total).toBe(4);
      expect(page.nextOffset).toBeNull();
      const anong = page.users[0];
      expect(anong).toMatchObject({ sessionCount: 2, messageCount: 6, lastActivityAt: "2026-11-01T10:00:06.000Z" });
      // The move superseded the city: one current location fact, and the name.
      expect(anong?.factCount).toBe((await graph.listFacts({ tenantId: "t", userId: "anong@example.com" })).filter((f) => f.validTo === null).length);
      expect(anong?.factCount).toBeGreaterThanOrEqual(2);

      const an = await graph.listUsers("t", { prefix: "an" });
      expect(an.users.map((u) => u.userId)).toEqual(["anong@example.com", "anna"]);
      const dotted = await graph.listUsers("t", { prefix: "anong@example." });
      expect(dotted.users.map((u) => u.userId)).toEqual(["anong@example.com"]);
      expect((await graph.listUsers("t", { prefix: "x" })).users).toEqual([]);

      const first = await graph.listUsers("t", { limit: 3 });
      expect(first).toMatchObject({ total: 4, nextOffset: 3 });
      const rest = await graph.listUsers("t", { limit: 3, offset: 3 });
      expect(rest.users.map((u) => u.userId)).toEqual(["bo"]);
      expect(await graph.listUsers("t", { offset: 10 })).toEqual({ users: [], total: 4, nextOffset: null });

      await expect(graph.getUser({ tenantId: "t", userId: "bo" })).resolves.toMatchObject({ userId: "bo", sessionCount: 1, messageCount: 2 });
      await expect(graph.getUser({ tenantId: "t", userId: "b" })).rejects.toMatchObject({ code: "USER_NOT_FOUND" });
      await expect(graph.getUser({ tenantId: "elsewhere", userId: "bo" })).rejects.toMatchObject({ code: "USER_NOT_FOUND" });
      await expect(graph.listUsers("t", { limit: 101 })).rejects.toMatchObject({ code: "INVALID_INPUT", field: "limit" });
      await expect(graph.listUsers("t", { prefix: "a/b" })).rejects.toMatchObject({ code: "INVALID_INPUT", field: "prefix" });

      await graph.forgetUser({ tenantId: "t", userId: "bo" });
      expect((await graph.listUsers("t")).users.map((u) => u.userId)).not.toContain("bo");
      await expect(graph.getUser({ tenantId: "t", userId: "bo" })).rejects.toMatchObject({ code: "USER_NOT_FOUND" });
    } finally {
      await graph.close();
      await cleanup();
    }
  }, 60_000);
});
