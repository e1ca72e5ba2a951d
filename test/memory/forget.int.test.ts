import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryGraph, type MemoryGraph, type MemoryGraphOptions } from "../../src/app/create-memory-graph.js";
import { setLogLevel } from "../../src/logger.js";
import { forgetSession, forgetUser } from "../../src/memory/forget.js";
import { namespaces } from "../../src/memory/namespaces.js";
import type { FactRecord } from "../../src/memory/records.js";
import { threadIdOf } from "../../src/memory/scope.js";
import { supportsOf } from "../../src/memory/store-io.js";
import { createTempDatabase } from "../support/postgres.js";

setLogLevel("silent");

// A tenant of its own per run: the Redis and Postgres servers are shared.
const tenantId = `acme-${randomUUID().slice(0, 8)}`;
const scopeOf = (userId: string, sessionId: string) => ({ tenantId, userId, sessionId });

async function threadsOf(checkpointer: BaseCheckpointSaver, threadId: string): Promise<number> {
  let n = 0;
  for await (const _ of checkpointer.list({ configurable: { thread_id: threadId } })) n += 1;
  return n;
}

async function itemsOf(store: BaseStore, userId: string) {
  return store.search(namespaces.user({ tenantId, userId }), { limit: 1000 });
}

async function seed(graph: MemoryGraph): Promise<void> {
  await graph.runTurn({ ...scopeOf("u1", "s1"), message: "My email is anong@example.com" });
  await graph.runTurn({ ...scopeOf("u1", "s1"), message: "I want to cancel my order 42 now" });
  await graph.runTurn({ ...scopeOf("u1", "s2"), message: "My name is Anong" });
  await graph.runTurn({ ...scopeOf("u10", "s1"), message: "My email is other@example.com" });
  await graph.settled(); // the summaries made after the replies are memory too
}

const backends: [string, () => Promise<MemoryGraphOptions & { cleanup?: () => Promise<void> | void }>][] = [
  ["InMemoryStore + MemorySaver", async () => ({ backend: "memory" })],
  [
    "Postgres",
    async () => {
      const db = await createTempDatabase();
      return { backend: "postgres", databaseUrl: db.url, cleanup: db.drop };
    },
  ],
  [
    "Redis sessions + SQLite long-term",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-forget-"));
      return {
        backend: "redis",
        redisUrl: "redis://127.0.0.1:6379",
        sqlitePath: path.join(dir, "m.db"),
        cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    },
  ],
  [
    "SQLite",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-forget-"));
      return { backend: "sqlite", sqlitePath: path.join(dir, "m.db"), cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  ],
];

describe.each(backends)("forgetting on %s", (_name, make) => {
  let graph: MemoryGraph;
  let cleanup: (() => Promise<void> | void) | undefined;

  afterEach(async () => {
    await graph.close();
    await cleanup?.();
  });

  async function open() {
    const { cleanup: done, ...options } = await make();
    cleanup = done;
    graph = await createMemoryGraph({ ...options, chatModel: null, limits: { summaryInterval: 1 } });
    await seed(graph);
    return graph.persistence;
  }

  it("forgetUser leaves nothing of the user and nothing else changed", async () => {
    const { store, checkpointer } = await open();
    const otherBefore = await itemsOf(store, "u10");
    expect((await itemsOf(store, "u1")).length).toBeGreaterThan(4);
    const graphNodes = (await store.search(namespaces.entities({ tenantId, userId: "u1" }), { limit: 1000 })).length;
    expect(graphNodes).toBeGreaterThan(0); // "My name is Anong" names someone
    const counts = await forgetUser(graph.persistence, { tenantId, userId: "u1" });
    expect(counts.sessions).toBe(2);
    expect(counts.threads).toBe(2);
    expect(counts.items).toBeGreaterThan(4);
    expect(counts).toMatchObject({ messages: 6, summaries: 3 });
    expect(counts.events + counts.facts).toBeGreaterThan(0);
    // Besides the layers, one memory-context record per answered turn (half the messages), and the entity graph's nodes.
    expect(counts.items).toBe(counts.messages + counts.summaries + counts.events + counts.facts + counts.messages / 2 + graphNodes);
    expect(await itemsOf(store, "u1")).toEqual([]);
    const everything = await store.search([tenantId], { limit: 1000 });
    expect(everything.every((item) => item.namespace[2] !== "u1")).toBe(true);
    expect(JSON.stringify(everything)).not.toContain("anong@example.com");
    expect(await threadsOf(checkpointer, threadIdOf(scopeOf("u1", "s1")))).toBe(0);
    expect(await threadsOf(checkpointer, threadIdOf(scopeOf("u1", "s2")))).toBe(0);
    expect(await graph.sessionState(scopeOf("u1", "s1"))).toBeNull();
    // u10 shares a prefix of the id: untouched.
    expect((await itemsOf(store, "u10")).map((i) => i.key).sort()).toEqual(otherBefore.map((i) => i.key).sort());
    expect(await threadsOf(checkpointer, threadIdOf(scopeOf("u10", "s1")))).toBeGreaterThan(0);
    expect(await forgetUser(graph.persistence, { tenantId, userId: "u1" })).toEqual({
      items: 0, messages: 0, summaries: 0, events: 0, facts: 0, sessions: 0, threads: 0,
    });
  });

  it("forgetUser finds and deletes a session whose id has a dot and a colon (stored under an escaped label)", async () => {
    const { store, checkpointer } = await open();
    const dotted = scopeOf("u1", "web.chat:7");
    await graph.runTurn({ ...dotted, message: "My name is Anong" });
    await graph.settled();
    expect(await threadsOf(checkpointer, threadIdOf(dotted))).toBeGreaterThan(0);
    const counts = await forgetUser(graph.persistence, { tenantId, userId: "u1" });
    expect(counts).toMatchObject({ sessions: 3, threads: 3 });
    expect(await threadsOf(checkpointer, threadIdOf(dotted))).toBe(0);
    expect(await graph.sessionState(dotted)).toBeNull();
    expect(await itemsOf(store, "u1")).toEqual([]);
  });

  it("forgetSession removes the transcript, thread, summaries, events and facts of that session only", async () => {
    const { store, checkpointer } = await open();
    const user = { tenantId, userId: "u1" };
    const counts = await forgetSession(graph.persistence, scopeOf("u1", "s1"));
    expect(counts).toMatchObject({ sessions: 1, threads: 1, messages: 4, restoredFacts: 0 });
    expect(counts.events).toBeGreaterThan(0);
    expect(counts.facts).toBeGreaterThan(0);
    expect(counts.summaries).toBeGreaterThan(0);
    expect(counts.items).toBe(counts.messages + counts.summaries + counts.events + counts.facts + counts.messages / 2);
    expect(await store.search(namespaces.session(scopeOf("u1", "s1")), { limit: 10 })).toEqual([]);
    expect(await store.search(namespaces.turnContexts(scopeOf("u1", "s1")), { limit: 10 })).toEqual([]);
    const left = await itemsOf(store, "u1");
    expect(left.filter((item) => (item.value as { sessionId?: string }).sessionId === "s1")).toEqual([]);
    const learned = left.filter((item) => ["events", "facts"].includes(item.namespace[3] ?? ""));
    expect(JSON.stringify(learned)).not.toContain("anong@example.com");
    expect(JSON.stringify(learned)).not.toContain("order 42");
    expect(await threadsOf(checkpointer, threadIdOf(scopeOf("u1", "s1")))).toBe(0);
    expect(await threadsOf(checkpointer, threadIdOf(scopeOf("u1", "s2")))).toBeGreaterThan(0);
    expect((await store.search(namespaces.session(scopeOf("u1", "s2")), { limit: 10 })).length).toBeGreaterThan(0);
    // What s2 taught stays: its summary and the name fact.
    const summaries = await store.search(namespaces.summaries(user), { limit: 100 });
    expect(summaries.map((s) => (s.value as { sessionId: string }).sessionId)).toEqual(["s2"]);
    const facts = await store.search(namespaces.facts(user), { limit: 10 });
    expect(facts.map((f) => (f.value as { key: string; sessionId: string }).sessionId)).toEqual(["s2"]);
    // Another user's session of the same id is untouched.
    expect(JSON.stringify(await itemsOf(store, "u10"))).toContain("other@example.com");
    expect(await forgetSession(graph.persistence, scopeOf("u1", "s1"))).toEqual({
      items: 0, messages: 0, summaries: 0, events: 0, facts: 0, restoredFacts: 0, keptPinnedFacts: 0, sessions: 0, threads: 0,
    });
  });

  it("forgetSession keeps a fact the person pinned (its sources, the forgotten messages, cleared); forgetUser removes it", async () => {
    const { store } = await open();
    const user = { tenantId, userId: "u1" };
    const email = (await graph.listFacts(user)).find((fact) => fact.key === "email");
    expect(email).toMatchObject({ value: "anong@example.com", sessionId: "s1" });
    expect(email?.sourceMessageIds.length).toBeGreaterThan(0);
    await graph.updateFact(user, email!.id, { pinned: true });
    const counts = await graph.forgetSession(scopeOf("u1", "s1"));
    expect(counts).toMatchObject({ sessions: 1, messages: 4, keptPinnedFacts: 1 });
    const facts = (await store.search(namespaces.facts(user), { limit: 10 })).map((f) => f.value as FactRecord);
    expect(facts.filter((fact) => fact.key === "email")).toEqual([
      expect.objectContaining({ id: email!.id, value: "anong@example.com", validTo: null, pinned: true, sourceMessageIds: [] }),
    ]);
    expect(await store.search(namespaces.session(scopeOf("u1", "s1")), { limit: 10 })).toEqual([]);
    // It still reaches the prompt of a later turn.
    const next = await graph.runTurn({ ...scopeOf("u1", "s3"), message: "What is my email?" });
    expect(next.memoryContext?.text).toContain("anong@example.com");
    await graph.settled();
    await graph.forgetUser(user);
    expect(await itemsOf(store, "u1")).toEqual([]);
  });

  it("forgetSession makes a fact that the session superseded current again", async () => {
    const { store } = await open();
    const user = { tenantId, userId: "u2" };
    await graph.runTurn({ ...scopeOf("u2", "s0"), message: "My email is old@example.com" });
    await graph.runTurn({ ...scopeOf("u2", "s1"), message: "Actually my email is zanzibar@example.com" });
    await graph.runTurn({ ...scopeOf("u2", "s1"), message: "I want to cancel my order 77 to Zanzibar now" });
    const before = (await store.search(namespaces.facts(user), { limit: 10 })).map((f) => f.value as { value: string; validTo: string | null });
    expect(before.find((f) => f.value === "old@example.com")?.validTo).not.toBeNull();
    // After the session's upkeep (its summary), under its turn lock.
    const counts = await graph.forgetSession(scopeOf("u2", "s1"));
    expect(counts).toMatchObject({ sessions: 1, threads: 1, messages: 4, facts: 1, restoredFacts: 1 });
    expect(counts.events).toBeGreaterThan(0);
    const left = await itemsOf(store, "u2");
    expect(JSON.stringify(left).toLowerCase()).not.toContain("zanzibar");
    const facts = (await store.search(namespaces.facts(user), { limit: 10 })).map((f) => f.value as { key: string; value: string; validTo: string | null });
    expect(facts).toEqual([expect.objectContaining({ key: "email", value: "old@example.com", validTo: null })]);
    // Nothing of the session is found by a ranked search either (index rows went with their items).
    if (supportsOf(store).rankedSearch) expect(await store.search(namespaces.user(user), { query: "zanzibar", limit: 10 })).toEqual([]);
  });

  it("refuses ids that could reach outside the scope", async () => {
    await open();
    await expect(forgetUser(graph.persistence, { tenantId, userId: "../u1" })).rejects.toMatchObject({ code: "INVALID_ID", field: "userId" });
    await expect(forgetSession(graph.persistence, { tenantId: "", userId: "u1", sessionId: "s1" })).rejects.toMatchObject({ field: "tenantId" });
  });
});
