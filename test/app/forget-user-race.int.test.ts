import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openPersistence, type BackendOptions, type Persistence } from "../../src/app/backends.js";
import { createMemoryGraph, type MemoryGraph } from "../../src/app/create-memory-graph.js";
import { setLogLevel } from "../../src/logger.js";
import { encodeLabel } from "../../src/memory/scope.js";
import { postgresRows, redisEntriesWith, sqliteRows } from "../support/every-row.js";
import { GatedChatModel } from "../support/models.js";
import { createTempDatabase } from "../support/postgres.js";

setLogLevel("silent");

const REDIS_URL = "redis://127.0.0.1:6379";

/** A gated model that also says when its first call is waiting at the gate. */
class HeldModel extends GatedChatModel {
  private heard!: () => void;
  readonly called = new Promise<void>((resolve) => (this.heard = resolve));

  protected override waitToAnswer(): Promise<void> {
    this.heard();
    return super.waitToAnswer();
  }
}

interface Engine {
  options: BackendOptions;
  /** Every row (or key) of the engine's storage that contains one of `needles`. */
  rowsWith(needles: readonly string[]): Promise<string[]>;
  cleanup(): Promise<void> | void;
}

const engines: [string, () => Promise<Engine>][] = [
  [
    "SQLite (two graphs on one file)",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-forget-race-"));
      const file = path.join(dir, "m.db");
      return {
        options: { backend: "sqlite", sqlitePath: file },
        rowsWith: async (needles) => sqliteRows(file).filter((row) => needles.some((needle) => row.includes(needle))),
        cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    },
  ],
  [
    "Postgres (two graphs on one database)",
    async () => {
      const db = await createTempDatabase();
      return {
        options: { backend: "postgres", databaseUrl: db.url },
        rowsWith: async (needles) => (await postgresRows(db.url)).filter((row) => needles.some((needle) => row.includes(needle))),
        cleanup: db.drop,
      };
    },
  ],
  [
    "Postgres with Redis sessions (two graphs)",
    async () => {
      const db = await createTempDatabase();
      return {
        options: { backend: "redis", redisUrl: REDIS_URL, databaseUrl: db.url },
        rowsWith: async (needles) => [
          ...(await postgresRows(db.url)).filter((row) => needles.some((needle) => row.includes(needle))),
          ...(await redisEntriesWith(REDIS_URL, needles)),
        ],
        cleanup: db.drop,
      };
    },
  ],
];

describe.each(engines)("forgetting a user while a turn of theirs runs on another graph: %s", (_name, make) => {
  let engine: Engine;
  let graphs: MemoryGraph[] = [];
  let raw: Persistence | undefined;

  afterEach(async () => {
    for (const graph of graphs) await graph.close();
    await raw?.close();
    await engine.cleanup();
    graphs = [];
    raw = undefined;
  });

  it("waits for the turn, then leaves nothing that names the user in any table or key", async () => {
    engine = await make();
    const tenantId = `t-${randomUUID().slice(0, 8)}`;
    const userId = `frank-${randomUUID().slice(0, 8)}`;
    const email = `frank.${randomUUID().slice(0, 6)}@example.com`;
    const user = { tenantId, userId };
    const model = new HeldModel(["Noted, I will write to you there."]);
    // A summary and a title after the reply: the turn's upkeep writes too.
    const turning = await createMemoryGraph({ ...engine.options, chatModel: model, limits: { summaryInterval: 1 }, sessionTitles: true });
    graphs.push(turning);
    // The forgetting graph sees when forgetUser asks for the user's lock (an event, not a time).
    raw = await openPersistence(engine.options);
    let askedForLock!: () => void;
    const lockAsked = new Promise<void>((resolve) => (askedForLock = resolve));
    const userLock = raw.userLock && {
      shared: raw.userLock.shared,
      exclusive: <T>(key: string, work: () => Promise<T>) => {
        askedForLock();
        return raw!.userLock.exclusive(key, work);
      },
    };
    const forgetting = await createMemoryGraph({ persistence: { ...raw, gc: raw.gc ?? undefined, userLock }, chatModel: null });
    graphs.push(forgetting);
    // Another user of the tenant, who must keep everything.
    await forgetting.runTurn({ tenantId, userId: "bystander", sessionId: "s1", message: "My email is bystander@example.com" });
    // What the user had before the race.
    await forgetting.runTurn({ ...user, sessionId: "s0", message: "I want to cancel my order 42 now" });
    await forgetting.settled();

    const turn = turning.runTurn({ ...user, sessionId: "s1", messageId: "m-1", message: `My email is ${email}` });
    await model.called;
    const forgotten = forgetting.forgetUser(user);
    let forgetEnded = false;
    void forgotten.then(() => (forgetEnded = true));
    await Promise.race([lockAsked, forgotten]);
    // It waits for the turn (before the change it had answered at once).
    expect(forgetEnded).toBe(false);
    model.release();
    const result = await turn;
    const counts = await forgotten;
    await turning.settled();

    expect(result.status).toBe("OK");
    // The forget came after the turn's writes: they were among what it deleted.
    expect(counts.sessions).toBe(2);
    const needles = [encodeLabel(userId), userId, email, "order 42"];
    expect(await engine.rowsWith(needles)).toEqual([]);
    expect(await turning.sessionMessages({ ...user, sessionId: "s1" })).toBeNull();
    expect(JSON.stringify(await turning.userMemory(user))).not.toContain(email);
    // The bystander's memory stays.
    expect((await engine.rowsWith(["bystander@example.com"])).length).toBeGreaterThan(0);
  });
});
