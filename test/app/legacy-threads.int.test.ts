import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { RunnableConfig } from "@langchain/core/runnables";
import { afterAll, describe, expect, it, vi } from "vitest";
import { openPersistence } from "../../src/app/backends.js";
import { createMemoryGraph, type MemoryGraph, type MemoryGraphOptions } from "../../src/app/create-memory-graph.js";
import { setLogLevel } from "../../src/logger.js";
import { textOf } from "../../src/messages/message-meta.js";
import { legacyThreadOf, threadIdOf, type MemoryScope } from "../../src/memory/scope.js";
import { createTempDatabase } from "../support/postgres.js";

/**
 * An upgrade loses no session: a session whose checkpoint an earlier release wrote under its ids
 * as given (`tenant/user/session`, here with dots and an e-mail user id) goes on from that
 * checkpoint on its next turn — window and node-scoped history — on every engine, and the old
 * thread is gone afterwards. Ids without `.`, `:` or `%` cost no extra checkpointer read.
 */

setLogLevel("silent");
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-legacy-"));
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, "memory.db");
}

const engines: { name: string; options: () => Promise<Partial<MemoryGraphOptions>> }[] = [
  { name: "sqlite", options: async () => ({ backend: "sqlite", sqlitePath: tempFile() }) },
  {
    name: "postgres",
    options: async () => {
      const db = await createTempDatabase();
      cleanups.push(db.drop);
      return { backend: "postgres", databaseUrl: db.url };
    },
  },
  { name: "redis", options: async () => ({ backend: "redis", redisUrl: process.env.REDIS_URL ?? "redis://127.0.0.1:6379", sqlitePath: tempFile() }) },
];

const human = (messages: { getType(): string }[] | undefined) => (messages ?? []).filter((m) => m.getType() === "human").map((m) => textOf(m as never));

describe.each(engines)("a session checkpointed under the old thread naming, on $name", ({ options }) => {
  it("goes on from that checkpoint on its next turn, and the old thread is gone", async () => {
    const memory: MemoryGraph = await createMemoryGraph({ ...(await options()), memoryMode: "node", chatModel: null, classifierModel: null, summaryModel: null });
    const scope: MemoryScope = { tenantId: `acme.${randomUUID().slice(0, 8)}`, userId: "ann.lee@mail.example", sessionId: "chat.1" };
    cleanups.push(async () => {
      await memory.forgetUser(scope).catch(() => undefined);
      await memory.close();
    });
    const legacy = legacyThreadOf(threadIdOf(scope));
    expect(legacy).toBe(`${scope.tenantId}/${scope.userId}/${scope.sessionId}`);
    const { checkpointer } = memory.persistence;
    const at = (threadId: string) => checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });

    // The old release: the session's turn checkpointed under its ids as given. Incognito, so
    // long-term memory holds nothing of it: only that checkpoint can bring it back.
    await memory.runTurn({ ...scope, message: "My locker code is 4711.", remember: false }, { threadId: legacy });
    await memory.settled();
    expect(await at(legacy!)).toBeDefined();

    await memory.runTurn({ ...scope, message: "What is my locker code?" });
    await memory.settled();
    const state = await memory.sessionState(scope);
    expect(human(state?.messages)).toEqual(["My locker code is 4711.", "What is my locker code?"]);
    expect(human(state?.nodeMessages.call_model)).toEqual(["My locker code is 4711.", "What is my locker code?"]);
    expect(state?.session.windowsRebuilt).toBe(0);
    expect(await at(legacy!)).toBeUndefined();
  });
});

describe("reading a session's checkpoint", () => {
  /** A SQLite-file graph whose checkpointer's reads are counted, by thread. */
  async function countedGraph() {
    const opened = await openPersistence({ backend: "sqlite", sqlitePath: tempFile(), sessionTtlSeconds: 1800 });
    const reads = vi.spyOn(opened.checkpointer, "getTuple");
    const puts = vi.spyOn(opened.checkpointer, "put");
    const memory = await createMemoryGraph({ persistence: { checkpointer: opened.checkpointer, store: opened.store }, chatModel: null, classifierModel: null, summaryModel: null });
    cleanups.push(async () => {
      await memory.close();
      await opened.close();
    });
    const threadsRead = () => reads.mock.calls.splice(0).map(([config]: [RunnableConfig]) => config.configurable?.thread_id as string);
    return { memory, threadsRead, puts };
  }

  it("reads only the session's own thread when its ids have no '.', ':' or '%'", async () => {
    const { memory, threadsRead } = await countedGraph();
    const scope = { tenantId: "acme", userId: "ann", sessionId: "s1" };
    await memory.runTurn({ ...scope, message: "Hello" });
    await memory.runTurn({ ...scope, message: "Hello again" });
    await memory.settled();
    const read = threadsRead();
    expect(read.length).toBeGreaterThan(0);
    expect(new Set(read)).toEqual(new Set([threadIdOf(scope)]));
  });

  it("looks for the old thread once per miss, and not once the session has a checkpoint", async () => {
    const { memory, threadsRead } = await countedGraph();
    const plain = { tenantId: "acme", userId: "bob", sessionId: "s1" };
    const dotted = { tenantId: "acme", userId: "bob@mail.example", sessionId: "s1" };
    const reads = async (scope: MemoryScope) => {
      await memory.runTurn({ ...scope, message: "Hello" });
      await memory.settled();
      return threadsRead();
    };
    const [plainFirst, dottedFirst] = [await reads(plain), await reads(dotted)];
    const legacy = legacyThreadOf(threadIdOf(dotted));
    // The first turn of a new session misses; each miss looks at the old thread once.
    expect(dottedFirst.filter((id) => id === threadIdOf(dotted))).toHaveLength(plainFirst.length);
    expect(dottedFirst.filter((id) => id === legacy).length).toBeGreaterThan(0);
    expect(dottedFirst.filter((id) => id === legacy).length).toBeLessThanOrEqual(plainFirst.length);
    const [plainNext, dottedNext] = [await reads(plain), await reads(dotted)];
    expect(dottedNext).toHaveLength(plainNext.length);
    expect(dottedNext.filter((id) => id !== threadIdOf(dotted))).toEqual([]);
  });

  it("forgets a session whose checkpoint is still under the old thread without copying it first", async () => {
    const { memory, puts } = await countedGraph();
    const scope = { tenantId: "acme", userId: "cy@mail.example", sessionId: "s1" };
    const legacy = legacyThreadOf(threadIdOf(scope))!;
    await memory.runTurn({ ...scope, message: "Hello" }, { threadId: legacy });
    await memory.settled();
    const at = (threadId: string) => memory.persistence.checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
    expect(await at(legacy)).toBeDefined();
    puts.mockClear();

    const forgotten = await memory.forgetSession(scope);
    expect(forgotten.threads).toBe(1);
    // Adopting the old thread on the way (a copy under the new name, deleted at once) would be a put.
    expect(puts).not.toHaveBeenCalled();
    expect(await at(legacy)).toBeUndefined();
    expect(await at(threadIdOf(scope))).toBeUndefined();
  });
});
