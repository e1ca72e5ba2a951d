import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openPersistence, type BackendOptions, type Persistence } from "../../src/app/backends.js";
import { createMemoryGraph, type MemoryGraph } from "../../src/app/create-memory-graph.js";
import { setLogLevel } from "../../src/logger.js";
import { threadIdOf } from "../../src/memory/scope.js";
import { createTempDatabase } from "../support/postgres.js";

setLogLevel("silent");

/**
 * A correction of a session takes what it removed out of the thread's older checkpoints too: they
 * are dropped, the newest (corrected) one kept. Read back through a second connection to the
 * engine, with the checkpointer's own `list`, on every engine that checkpoints sessions.
 */
const engines: [string, () => Promise<{ options: BackendOptions; cleanup: () => Promise<void> | void }>][] = [
  ["the memory engine (a persistence of the caller's)", async () => ({ options: { backend: "memory" }, cleanup: () => undefined })],
  [
    "SQLite",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-history-"));
      return { options: { backend: "sqlite", sqlitePath: path.join(dir, "m.db") }, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  ],
  [
    "Postgres",
    async () => {
      const db = await createTempDatabase();
      return { options: { backend: "postgres", databaseUrl: db.url }, cleanup: db.drop };
    },
  ],
  [
    "Postgres with Redis sessions",
    async () => {
      const db = await createTempDatabase();
      return { options: { backend: "redis", redisUrl: "redis://127.0.0.1:6379", databaseUrl: db.url }, cleanup: db.drop };
    },
  ],
];

/** Each checkpoint of the thread (newest first) as JSON text: its values and its pending writes. */
async function history(persistence: Persistence, threadId: string): Promise<string[]> {
  const found: string[] = [];
  for await (const tuple of persistence.checkpointer.list({ configurable: { thread_id: threadId } })) {
    found.push(JSON.stringify({ values: tuple.checkpoint.channel_values, writes: tuple.pendingWrites ?? [] }));
  }
  return found;
}

describe.each(engines)("a correction leaves no older checkpoint holding what it took out: %s", (_name, make) => {
  let graph: MemoryGraph;
  let raw: Persistence;
  let cleanup: () => Promise<void> | void;
  const user = { tenantId: `t-${randomUUID().slice(0, 8)}`, userId: "hist" };
  const s1 = { ...user, sessionId: "s1" };

  afterEach(async () => {
    await graph.close();
    await raw.close();
    await cleanup();
  });

  async function open(): Promise<void> {
    const engine = await make();
    cleanup = engine.cleanup;
    raw = await openPersistence(engine.options);
    // The memory engine lives in this process: the graph is given it, as a library user would.
    const where = engine.options.backend === "memory" ? { persistence: { ...raw, gc: raw.gc ?? undefined } } : engine.options;
    graph = await createMemoryGraph({ ...where, chatModel: null, classifierModel: null });
  }

  it("a deleted fact: every older checkpoint goes, the newest holds no trace, and the session goes on", async () => {
    await open();
    await graph.runTurn({ ...s1, message: "I live in Chiang Mai" });
    await graph.runTurn({ ...s1, message: "Actually I moved to Bangkok last week" });
    await graph.runTurn({ ...s1, message: "I like jazz a lot" });
    await graph.settled();
    const threadId = threadIdOf(s1);
    const before = await history(raw, threadId);
    // Before: several checkpoints, more than one of them naming the city (so the checks below can fail).
    expect(before.filter((text) => text.includes("Bangkok")).length).toBeGreaterThan(1);

    const city = (await graph.listFacts(user)).find((fact) => fact.value === "Bangkok")!;
    await graph.deleteFact(user, city.id, { versions: "all" });

    const after = await history(raw, threadId);
    expect(after).toHaveLength(1);
    expect(after[0]).not.toContain("Bangkok");
    expect(after[0]).toContain("I like jazz a lot");
    // The session continues from the corrected checkpoint.
    const turn = await graph.runTurn({ ...s1, message: "What music do I like?" });
    expect(turn.status).toBe("OK");
    const window = (await graph.sessionMessages(s1)) ?? [];
    expect(window.map((message) => message.text)).toContain("I like jazz a lot");
    expect(JSON.stringify(window)).not.toContain("Bangkok");
  });

  it("a deleted message: it is in no checkpoint of its session afterwards", async () => {
    await open();
    await graph.runTurn({ ...s1, messageId: "m-secret", message: "My locker code is 4471" });
    await graph.runTurn({ ...s1, message: "Remind me to water the plants" });
    await graph.settled();
    const threadId = threadIdOf(s1);
    expect((await history(raw, threadId)).filter((text) => text.includes("4471")).length).toBeGreaterThan(1);

    await graph.deleteMessage(s1, "m-secret");

    const after = await history(raw, threadId);
    expect(after).toHaveLength(1);
    expect(after[0]).not.toContain("4471");
    expect(after[0]).toContain("water the plants");
  });
});
