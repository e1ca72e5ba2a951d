import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { afterEach, describe, expect, it } from "vitest";
import { startRedisChild, type RedisChild } from "../../bench/lib/redis-child.js";
import { startTcpProxy, type TcpProxy } from "../../bench/lib/tcp-proxy.js";
import { createMemoryGraph, type MemoryGraph, type MemoryGraphOptions } from "../../src/app/create-memory-graph.js";
import { MemoryGraphError } from "../../src/errors.js";
import { setLogLevel } from "../../src/logger.js";
import { createTempDatabase } from "../support/postgres.js";

/**
 * The library while its storage goes away: `runTurn` answers without the session store (a private
 * redis-server, stopped and started) and says so in `degraded`; once it is back, the session's
 * window holds every message of the degraded turns, whether Redis kept its data (a stale
 * checkpoint) or lost it; without the long-term store a turn is refused with a typed error.
 */

setLogLevel("silent");
const scope = { tenantId: "t", userId: "u", sessionId: "s" };
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function redisGraph(redis: RedisChild, options: Partial<MemoryGraphOptions> = {}): Promise<MemoryGraph> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-degraded-"));
  const memory = await createMemoryGraph({ backend: "redis", redisUrl: redis.url, sqlitePath: path.join(dir, "memory.db"), chatModel: null, storageTimeoutMs: 1000, ...options });
  cleanups.push(async () => {
    await memory.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return memory;
}

async function privateRedis(persist: boolean): Promise<RedisChild> {
  const redis = await startRedisChild({ persist });
  cleanups.push(() => redis.dispose());
  return redis;
}

async function untilHealthy(memory: MemoryGraph): Promise<void> {
  const until = Date.now() + 20_000;
  while ((await memory.checkHealth()).some((dependency) => !dependency.ok)) {
    if (Date.now() > until) throw new Error("storage did not come back");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const ask = (memory: MemoryGraph, message: string) => memory.runTurn({ ...scope, message });

describe.each([
  { persist: true, case: "Redis comes back with the checkpoint written before the outage" },
  { persist: false, case: "Redis comes back empty" },
])("without the session store: $case", ({ persist }) => {
  it("answers degraded, and the next turn's window holds the degraded turns", async () => {
    const redis = await privateRedis(persist);
    const memory = await redisGraph(redis);
    const first = await ask(memory, "My name is Anong.");
    expect(first.degraded).toEqual([]);

    await redis.stop();
    const during = [await ask(memory, "I like green tea."), await ask(memory, "I live in Chiang Mai.")];
    for (const result of during) {
      expect(result.status).toBe("OK");
      expect(result.degraded).toEqual(["session_store"]);
    }
    expect(memory.health().find((d) => d.name === "session_store")).toMatchObject({ ok: false, outages: 1, degradedTurns: 2 });

    await redis.start();
    await untilHealthy(memory);
    const after = await ask(memory, "What do you know about me?");
    expect(after.degraded).toEqual([]);
    const window = ((await memory.sessionState(scope))?.messages ?? []).map((m) => m.id);
    for (const result of [...during, after]) {
      expect(window).toContain(result.messageIds.user);
      expect(window).toContain(result.messageIds.assistant);
    }
    // In order, the newest last.
    const ids = [...during, after].flatMap((r) => [r.messageIds.user, r.messageIds.assistant]);
    expect(window.filter((id) => ids.includes(id ?? null))).toEqual(ids);
  });
});

describe("a session store lost in the middle of a turn", () => {
  it("keeps the reply, skips the checkpoint on purpose, and the next turn catches up", async () => {
    const redis = await privateRedis(true);
    // The model answers slowly, so that Redis goes away after the turn read its checkpoint.
    const events: string[] = [];
    const record = (_fields: unknown, event: string) => void events.push(event);
    const memory = await redisGraph(redis, {
      chatModel: new FakeListChatModel({ responses: ["Noted.", "Noted again.", "Still here."], sleep: 800 }),
      // The keyword classifier: the result waits for the whole run, so it can report the skipped
      // checkpoint write (a result that does not wait for a model's classification comes before it).
      classifierModel: null,
      logger: { debug: record, info: record, warn: record, error: record },
    });
    await ask(memory, "My name is Anong.");
    const pending = memory.runTurn({ ...scope, message: "Remember that I like green tea." });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await redis.stop();
    const result = await pending;
    expect(result.status).toBe("OK");
    expect(result.degraded).toEqual(["session_store"]);
    expect(events).toContain("checkpoint.write_skipped");
    await redis.start();
    await untilHealthy(memory);
    const after = await ask(memory, "And now?");
    expect(after.degraded).toEqual([]);
    const window = ((await memory.sessionState(scope))?.messages ?? []).map((m) => m.id);
    expect(window).toContain(result.messageIds.user);
    expect(window).toContain(result.messageIds.assistant);
  });
});

describe("without the long-term store", () => {
  let proxy: TcpProxy;
  it("refuses the turn with MEMORY_STORE_UNAVAILABLE, naming the dependency", async () => {
    const database = await createTempDatabase();
    cleanups.push(() => database.drop());
    proxy = await startTcpProxy({ host: "127.0.0.1", port: 5432 });
    cleanups.push(() => proxy.close());
    const memory = await createMemoryGraph({
      backend: "postgres",
      databaseUrl: database.url.replace("127.0.0.1:5432", `127.0.0.1:${proxy.port}`),
      chatModel: null,
      storageTimeoutMs: 1000,
    });
    cleanups.push(() => memory.close());
    expect((await ask(memory, "Before the cut.")).status).toBe("OK");
    proxy.cut();
    const refused = await ask(memory, "During the cut.").then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(MemoryGraphError);
    expect(refused).toMatchObject({ code: "MEMORY_STORE_UNAVAILABLE", kind: "upstream", dependency: "memory_store" });
    expect((refused as MemoryGraphError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(memory.health().find((d) => d.name === "memory_store")).toMatchObject({ ok: false, refusedTurns: 1 });
    proxy.restore();
    await untilHealthy(memory);
    expect((await ask(memory, "After the cut.")).status).toBe("OK");
    const texts = ((await memory.sessionState(scope))?.messages ?? []).map((m) => m.text);
    expect(texts).toContain("After the cut.");
    expect(texts).not.toContain("During the cut.");
  });
});
