import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { InMemoryStore } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { createMemoryGraph, type MemoryGraphOptions } from "../../src/app/create-memory-graph.js";
import { setLogLevel } from "../../src/logger.js";
import { sweepUndo, UNDO_WINDOW_MS } from "../../src/memory/fact-undo.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { manualClock } from "../support/deps.js";
import { createTempDatabase } from "../support/postgres.js";

setLogLevel("silent");

/** Undo of a person's fact changes: a delete is soft for a minute (the model stops reading it at once), an edit is undone by restoring the version it replaced. */

const engines: [string, () => Promise<{ options: MemoryGraphOptions; cleanup: () => Promise<void> | void }>][] = [
  ["memory", async () => ({ options: { backend: "memory" }, cleanup: () => undefined })],
  [
    "sqlite",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-undo-"));
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

describe.each(engines)("undo of fact changes on %s", (_name, open) => {
  it("a deleted fact is gone from the next turn at once, and comes back whole when undone within the window; not after it", async () => {
    const { options, cleanup } = await open();
    const clock = manualClock();
    const graph = await createMemoryGraph({ ...options, chatModel: null, classifierModel: null, summaryModel: null, now: clock.now, logger: false });
    try {
      const user = { tenantId: "t", userId: "u" };
      await graph.runTurn({ ...user, sessionId: "s1", message: "I live in Bangkok" });
      await graph.runTurn({ ...user, sessionId: "s1", message: "My name is Anong" });
      await graph.settled();
      const city = (await graph.listFacts(user, { current: true })).find((f) => f.value === "Bangkok")!;
      expect(city).toBeDefined();

      await graph.deleteFact(user, city.id, { versions: "all" });
      const after = await graph.runTurn({ ...user, sessionId: "s2", message: "Where do I live?" });
      expect(after.memoryContext.text).not.toContain("Bangkok");
      expect(JSON.stringify(await graph.exportUser(user))).not.toContain("Bangkok");

      clock.advance(UNDO_WINDOW_MS / 2);
      const restored = await graph.restoreFact(user, city.id);
      expect(restored).toMatchObject({ id: city.id, value: "Bangkok", validTo: null });
      expect((await graph.listFacts(user, { current: true })).map((f) => f.value)).toContain("Bangkok");
      // The message it was cut out of reads as it did.
      const stored = await graph.listMessages({ ...user, sessionId: "s1" });
      expect(stored.some((m) => m.text === "I live in Bangkok")).toBe(true);
      const next = await graph.runTurn({ ...user, sessionId: "s3", message: "Where do I live?" });
      expect(next.memoryContext.text).toContain("Bangkok");
      // Undone once: a second undo finds nothing to bring back (the fact is current: nothing replaced it).
      await expect(graph.restoreFact(user, city.id)).rejects.toMatchObject({ code: "FACT_STALE" });

      // Too late: past the window the delete is final.
      await graph.deleteFact(user, city.id, { versions: "all" });
      clock.advance(UNDO_WINDOW_MS + 1);
      await expect(graph.restoreFact(user, city.id)).rejects.toMatchObject({ code: "FACT_NOT_FOUND" });
      expect((await graph.listFacts(user, { current: true })).map((f) => f.value)).not.toContain("Bangkok");
    } finally {
      await graph.close();
      await cleanup();
    }
  }, 60_000);

  it("an edit is undone by restoring the version it replaced; the edit's version goes", async () => {
    const { options, cleanup } = await open();
    // A clock that moves between changes: a version's successor is the one that began when it ended.
    const clock = manualClock();
    const now = () => {
      clock.advance(1000);
      return clock.now();
    };
    const graph = await createMemoryGraph({ ...options, chatModel: null, classifierModel: null, summaryModel: null, now, logger: false });
    try {
      const user = { tenantId: "t", userId: "u" };
      await graph.runTurn({ ...user, sessionId: "s1", message: "I live in Bangkok" });
      await graph.settled();
      const city = (await graph.listFacts(user, { current: true })).find((f) => f.value === "Bangkok")!;
      const edited = await graph.updateFact(user, city.id, { value: "Chiang Mai" });
      expect((await graph.runTurn({ ...user, sessionId: "s2", message: "Where do I live?" })).memoryContext.text).toContain("Chiang Mai");

      const restored = await graph.restoreFact(user, city.id);
      expect(restored).toMatchObject({ id: city.id, value: "Bangkok", validTo: null });
      const versions = (await graph.listFacts(user)).filter((f) => f.key === city.key);
      expect(versions.map((f) => f.id)).toEqual([city.id]);
      await expect(graph.getFact(user, edited.id)).rejects.toMatchObject({ code: "FACT_NOT_FOUND" });
      const next = await graph.runTurn({ ...user, sessionId: "s3", message: "Where do I live?" });
      expect(next.memoryContext.text).toContain("Bangkok");
      expect(next.memoryContext.text).not.toContain("Chiang Mai");

      // An older version whose successor was changed since is not restored over it.
      const second = await graph.updateFact(user, city.id, { value: "Phuket" });
      await graph.updateFact(user, second.id, { value: "Krabi" });
      await expect(graph.restoreFact(user, city.id)).rejects.toMatchObject({ code: "FACT_STALE" });
      await expect(graph.restoreFact(user, "no-such-fact")).rejects.toMatchObject({ code: "FACT_NOT_FOUND" });
    } finally {
      await graph.close();
      await cleanup();
    }
  }, 60_000);
});

describe("sweepUndo", () => {
  it("deletes the undo records whose window has passed, and only those", async () => {
    const store = new InMemoryStore();
    const user = { tenantId: "t", userId: "u" };
    const at = (ms: number) => new Date(Date.parse("2026-11-01T10:00:00.000Z") + ms).toISOString();
    await store.put(namespaces.factUndo(user), "old", { factId: "old", until: at(0), facts: [], items: [] }, false);
    await store.put(namespaces.factUndo(user), "new", { factId: "new", until: at(60_000), facts: [], items: [] }, false);
    expect(await sweepUndo(store, user, new Date(at(1)))).toBe(1);
    expect((await store.search(namespaces.factUndo(user))).map((item) => item.key)).toEqual(["new"]);
  });
});
