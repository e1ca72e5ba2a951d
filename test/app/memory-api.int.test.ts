import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryGraph, type MemoryGraph, type MemoryGraphOptions } from "../../src/app/create-memory-graph.js";
import { MemoryGraphError } from "../../src/errors.js";
import { setLogLevel } from "../../src/logger.js";
import { MAX_IMPORT_MESSAGES, type ImportSession } from "../../src/memory/import-schema.js";
import { DEFAULT_LIMITS } from "../../src/memory/limits.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { searchSimilar } from "../../src/memory/similar.js";
import { createTempDatabase } from "../support/postgres.js";

setLogLevel("silent");

// A tenant of its own per run: the Postgres server is shared.
const tenantId = `acme-${randomUUID().slice(0, 8)}`;
const user = { tenantId, userId: "u.1" };

const history: ImportSession[] = [
  {
    sessionId: "trip.2023",
    startedAt: "2023-05-08T13:56:00Z",
    messages: [
      { id: "m1", role: "user", text: "We are planning a trip to Chiang Mai in June", speaker: "Anong" },
      { id: "m2", role: "assistant", text: "Chiang Mai is lovely in June, if rainy." },
      { id: "m3", role: "user", text: "My cat Mali will stay with my sister", speaker: "Anong", createdAt: "2023-05-08T14:10:00+07:00" },
    ],
  },
  {
    sessionId: "work",
    startedAt: "2023-06-01T09:00:00Z",
    messages: [
      { id: "w1", role: "user", text: "The quarterly report is due on Friday" },
      { id: "w2", role: "assistant", text: "I will remind you about the report on Thursday." },
    ],
  },
];

const backends: [string, () => Promise<MemoryGraphOptions & { cleanup?: () => Promise<void> | void }>][] = [
  [
    "SQLite",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-memapi-"));
      return { backend: "sqlite", sqlitePath: path.join(dir, "m.db"), cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  ],
  [
    "Postgres",
    async () => {
      const db = await createTempDatabase();
      return { backend: "postgres", databaseUrl: db.url, cleanup: db.drop };
    },
  ],
];

describe.each(backends)("memory search, import and export on %s", (_name, make) => {
  let graph: MemoryGraph;
  let cleanup: (() => Promise<void> | void) | undefined;

  afterEach(async () => {
    await graph.close();
    await cleanup?.();
  });

  async function open(): Promise<MemoryGraph> {
    const { cleanup: done, ...options } = await make();
    cleanup = done;
    graph = await createMemoryGraph({ ...options, chatModel: null, classifierModel: null, summaryModel: null, limits: { summaryInterval: 2 } });
    return graph;
  }

  const stored = async () => graph.persistence.store.search(namespaces.user(user), { limit: 1000 });

  it("imports sessions into the transcript and index, and search ranks them as recall does, with every score", async () => {
    await open();
    const counts = await graph.importSessions(user, history);
    expect(counts).toEqual({ sessions: 2, messages: { imported: 5, skipped: 0 }, events: 0, facts: 0, summaries: 0, turns: 0, entities: 4, classified: 0 });
    const { hits } = await graph.search({ ...user, query: "who looks after the cat during the trip?", limit: 5 });
    expect(hits[0]).toMatchObject({ id: "m3", sessionId: "trip.2023", role: "user", speaker: "Anong", createdAt: "2023-05-08T07:10:00.000Z" });
    expect(hits[0]?.scores.fused).toBe(hits[0]?.score);
    expect(hits[0]?.scores.lexical).toBeGreaterThan(0);
    expect(hits[0]?.scores.vector).toBeNull();
    // The same ranking recall uses, over the same namespaces.
    const recall = DEFAULT_LIMITS.recall;
    const direct = await searchSimilar(graph.persistence.store, namespaces.sessions(user), {
      query: "who looks after the cat during the trip?",
      limit: 5,
      maxCandidates: recall.maxCandidates,
      minVectorScore: recall.minVectorScore,
      excludeIds: new Set(),
    });
    expect(hits.map((hit) => [hit.id, hit.score])).toEqual(direct.map((hit) => [hit.id, hit.score]));
    // Messages without createdAt are dated from startedAt, one second apart; parents follow the order.
    const m2 = await graph.persistence.store.get(namespaces.transcript({ ...user, sessionId: "trip.2023" }), "m2");
    expect(m2?.value).toMatchObject({ createdAt: "2023-05-08T13:56:01.000Z", parentId: "m1" });
    // One session only, and the memory block a turn would be given.
    const inWork = await graph.search({ ...user, query: "report", sessionId: "work", withContext: true });
    expect(inWork.hits.map((hit) => hit.sessionId)).toEqual(["work", "work"]);
    expect(inWork.memoryContext?.shownIds).toContain("w1");
    expect(inWork.memoryContext?.text).toContain("quarterly report");
  });

  it("is idempotent by message id, and a bad element or a conflict stores nothing", async () => {
    await open();
    await graph.importSessions(user, history);
    const before = (await stored()).length;
    expect(await graph.importSessions(user, history)).toMatchObject({ messages: { imported: 0, skipped: 5 } });
    expect((await stored()).length).toBe(before);

    const fresh = { sessionId: "new", startedAt: "2023-07-01T00:00:00Z", messages: [{ id: "n1", role: "user" as const, text: "hello again" }] };
    const bad = [fresh, { ...history[1]!, messages: [{ id: "w9", role: "robot", text: "beep" }] }];
    await expect(graph.importSessions(user, bad as never)).rejects.toMatchObject({ code: "INVALID_INPUT", field: "1.messages.0.role", kind: "user" });
    const changed = [fresh, { ...history[1]!, messages: [{ id: "w1", role: "user" as const, text: "The report is due on Monday" }] }];
    await expect(graph.importSessions(user, changed)).rejects.toMatchObject({ code: "MESSAGE_ID_CONFLICT", field: "1.messages.0.id" });
    const twice = [fresh, { ...fresh, sessionId: "other", messages: [fresh.messages[0]!, fresh.messages[0]!] }];
    await expect(graph.importSessions(user, twice)).rejects.toMatchObject({ code: "INVALID_INPUT", field: "1.messages.1.id" });
    const many = [{ ...fresh, messages: Array.from({ length: MAX_IMPORT_MESSAGES + 1 }, (_, i) => ({ id: `x${i}`, role: "user" as const, text: "hi" })) }];
    await expect(graph.importSessions(user, many)).rejects.toMatchObject({ code: "IMPORT_TOO_LARGE" });
    await expect(graph.importSessions(user, [{ ...fresh, extra: 1 }] as never)).rejects.toMatchObject({ code: "UNKNOWN_FIELD", field: "0.extra" });
    expect((await stored()).length).toBe(before);
    expect((await graph.search({ ...user, query: "hello again" })).hits).toEqual([]);
  });

  it("classifies imported user messages into events and facts only when asked, dated by the message", async () => {
    await open();
    const named = [{ sessionId: "intro", startedAt: "2022-01-02T03:04:05Z", messages: [{ id: "i1", role: "user" as const, text: "My name is Anong" }] }];
    await graph.importSessions(user, named);
    expect((await graph.exportUser(user)).facts).toEqual([]);
    const counts = await graph.importSessions({ ...user, userId: "u2" }, named, { classify: true });
    expect(counts.classified).toBe(1);
    const facts = (await graph.exportUser({ ...user, userId: "u2" })).facts;
    expect(facts).toEqual([expect.objectContaining({ key: "name", value: "Anong", validFrom: "2022-01-02T03:04:05.000Z", validTo: null, sourceMessageIds: ["i1"] })]);
  });

  it("export → forget → import gives the same memory: every layer, and the same search results", async () => {
    await open();
    await graph.importSessions(user, history);
    const live = { ...user, sessionId: "live" };
    for (const message of ["My name is Anong", "I live in Bangkok", "I want to cancel my order 42 now", "Actually I moved to Chiang Mai"]) {
      await graph.runTurn({ ...live, message });
    }
    await graph.settled();
    const exported = await graph.exportUser(user);
    expect(exported.sessions.map((s) => s.sessionId).sort()).toEqual(["live", "trip.2023", "work"]);
    expect(exported.events.length).toBeGreaterThan(0);
    expect(exported.summaries.length).toBeGreaterThan(0);
    expect(exported.facts.some((fact) => fact.validTo !== null)).toBe(true); // a superseded fact, with its validity
    const query = { ...user, query: "where does Anong live now, and the trip to Chiang Mai", limit: 10 };
    const before = await graph.search(query);

    await graph.forgetUser(user);
    expect(await stored()).toEqual([]);
    const counts = await graph.importSessions(user, JSON.parse(JSON.stringify(exported)) as typeof exported);
    expect(counts.messages.imported).toBe(exported.sessions.reduce((n, s) => n + s.messages.length, 0));

    expect(await graph.exportUser(user)).toEqual(exported);
    expect(await graph.search(query)).toEqual(before);
  });

  it("reads an imported session back as its thread, and its first turn follows on from it, the imported tail in its window", async () => {
    await open();
    const scope = { ...user, sessionId: "recent" };
    const startedAt = new Date(Date.now() - 5 * 60_000).toISOString(); // within the session TTL
    await graph.importSessions(user, [{ sessionId: "recent", startedAt, messages: history[0]!.messages.map(({ createdAt: _, ...message }) => message) }]);
    expect((await graph.sessionMessages(scope))?.map((m) => [m.id, m.parentId])).toEqual([["m1", null], ["m2", "m1"], ["m3", "m2"]]);

    expect((await graph.runTurn({ ...scope, message: "When do we leave?", messageId: "m4" })).status).toBe("OK");
    expect((await graph.sessionMessages(scope))?.slice(0, 4).map((m) => [m.id, m.parentId])).toEqual([["m1", null], ["m2", "m1"], ["m3", "m2"], ["m4", "m3"]]);
    expect((await graph.sessionState(scope))?.messages.map((m) => m.id).filter((id) => id?.startsWith("m"))).toEqual(["m1", "m2", "m3", "m4"]);
  });

  it("refuses another call once closed", async () => {
    await open();
    await graph.close();
    await expect(graph.search({ ...user, query: "x" })).rejects.toBeInstanceOf(MemoryGraphError);
    graph = await createMemoryGraph({ backend: "memory" }); // afterEach closes this one
  });
});
