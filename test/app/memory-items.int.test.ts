import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { UNDO_WINDOW_MS } from "../../src/memory/fact-undo.js";
import { createMemoryGraph, type MemoryGraph, type MemoryGraphOptions } from "../../src/app/create-memory-graph.js";
import { setLogLevel } from "../../src/logger.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { HashedNgramEmbeddings } from "../../src/memory/ranking/index.js";
import { sourceIdOf } from "../../src/graph/nodes/ingest-prompt.js";
import { RecordingChatModel } from "../support/models.js";
import { createTempDatabase } from "../support/postgres.js";

setLogLevel("silent");

const tenantId = `acme-${randomUUID().slice(0, 8)}`;
const user = { tenantId, userId: "u.1" };
const live = { ...user, sessionId: "live" };

/** Rows of store items with `key` (in namespaces containing `within`) in the item table, the full-text index and the vector table. */
type RowCounter = (key: string, within?: string) => Promise<{ items: number; index: number; vectors: number }>;

interface Backend {
  options: MemoryGraphOptions;
  rows: RowCounter;
  cleanup: () => Promise<void> | void;
}

const backends: [string, () => Promise<Backend>][] = [
  [
    "SQLite",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-items-"));
      const file = path.join(dir, "m.db");
      const rows: RowCounter = async (key, within = "") => {
        const db = new Database(file, { readonly: true });
        try {
          const ids = (db.prepare("SELECT id FROM store_items WHERE key = ? AND instr(namespace, ?) > 0").all(key, within) as { id: number }[]).map((row) => row.id);
          const count = (sql: string) => ids.reduce((n, id) => n + (db.prepare(sql).get(id) as { n: number }).n, 0);
          return { items: ids.length, index: count("SELECT count(*) AS n FROM store_fts WHERE rowid = ?"), vectors: count("SELECT count(*) AS n FROM store_vectors WHERE item_id = ?") };
        } finally {
          db.close();
        }
      };
      return { options: { backend: "sqlite", sqlitePath: file }, rows, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  ],
  [
    "Postgres",
    async () => {
      const db = await createTempDatabase();
      const rows: RowCounter = async (key, within = "") => {
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        try {
          const items = await client.query<{ n: string; indexed: string }>(
            "SELECT count(*) AS n, count(tokens) AS indexed FROM store_items WHERE key = $1 AND strpos(ns_path, $2) > 0",
            [key, within],
          );
          const vectors = await client.query<{ n: string }>(
            "SELECT count(*) AS n FROM store_vectors v JOIN store_items i ON i.id = v.item_id WHERE i.key = $1 AND strpos(i.ns_path, $2) > 0",
            [key, within],
          );
          return { items: Number(items.rows[0]?.n), index: Number(items.rows[0]?.indexed), vectors: Number(vectors.rows[0]?.n) };
        } finally {
          await client.end();
        }
      };
      return { options: { backend: "postgres", databaseUrl: db.url }, rows, cleanup: db.drop };
    },
  ],
];

describe.each(backends)("memory a person can see and correct, on %s", (_name, make) => {
  let graph: MemoryGraph;
  let backend: Backend;

  afterEach(async () => {
    await graph.close();
    await backend.cleanup();
  });

  async function open(options: MemoryGraphOptions = {}): Promise<MemoryGraph> {
    backend = await make();
    // Local embeddings, so that messages are stored with vectors (and deletes can be seen to take them).
    graph = await createMemoryGraph({ ...backend.options, embeddings: new HashedNgramEmbeddings(), chatModel: null, classifierModel: null, summaryModel: null, limits: { summaryInterval: 2 }, ...options });
    return graph;
  }

  const factNamed = async (value: string) => (await graph.listFacts(user, { current: true })).find((fact) => fact.value === value);

  it("edits a fact into a new version the very next turn sees, with its history; a stale edit is a 409-class error, a retried one is answered", async () => {
    await open();
    await graph.runTurn({ ...live, message: "I live in Bangkok" });
    const bangkok = await factNamed("Bangkok");
    expect(bangkok).toBeDefined();

    const edited = await graph.updateFact(user, bangkok!.id, { value: "Chiang Mai" });
    expect(edited).toMatchObject({ key: bangkok!.key, value: "Chiang Mai", validTo: null, source: "edit" });
    const { fact, history } = await graph.getFact(user, edited.id);
    expect(fact).toEqual(edited);
    expect(history.map((version) => [version.value, version.supersededBy])).toEqual([["Bangkok", edited.id], ["Chiang Mai", null]]);
    expect(history[0]?.validTo).toBe(edited.validFrom);
    expect(history[0]?.sourceMessageIds).toHaveLength(1); // the message it came from

    // The same edit again (a retry) answers the version it made; another edit of the old version is stale.
    expect(await graph.updateFact(user, bangkok!.id, { value: "Chiang Mai" })).toEqual(edited);
    await expect(graph.updateFact(user, bangkok!.id, { value: "Phuket" })).rejects.toMatchObject({ code: "FACT_STALE", kind: "user" });
    await expect(graph.updateFact(user, "nope", { value: "x" })).rejects.toMatchObject({ code: "FACT_NOT_FOUND" });
    await expect(graph.updateFact(user, edited.id, { value: " " })).rejects.toMatchObject({ code: "INVALID_INPUT", field: "value" });
    await expect(graph.updateFact(user, edited.id, { colour: "red" } as never)).rejects.toMatchObject({ code: "UNKNOWN_FIELD", field: "colour" });

    // Two people editing the same version at once: one edit wins, the other is told it is stale.
    const raced = await Promise.allSettled([graph.updateFact(user, edited.id, { value: "Lampang" }), graph.updateFact(user, edited.id, { value: "Krabi" })]);
    expect(raced.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect(raced.find((r) => r.status === "rejected")).toMatchObject({ reason: { code: "FACT_STALE" } });
    const winner = (raced.find((r) => r.status === "fulfilled") as PromiseFulfilledResult<{ id: string }>).value;
    expect((await graph.listFacts(user, { current: true })).filter((f) => f.key === bangkok!.key)).toHaveLength(1);
    const back = await graph.updateFact(user, winner.id, { value: "Chiang Mai" });

    const next = await graph.runTurn({ ...live, message: "Where do I live these days?", messageId: "q1" });
    expect(next.memoryContext.recalled?.facts.map((f) => f.value)).toContain("Chiang Mai");
    expect(next.memoryContext.recalled?.facts.map((f) => f.value)).not.toContain("Bangkok");
    expect(next.memoryContext.text).toContain("Chiang Mai");
    // Why did the model see it: the turn's record names the edited fact.
    const seen = await graph.turnContext(live, "q1");
    expect(seen).toMatchObject({ messageId: "q1", replyId: next.messageIds.assistant, sessionId: "live" });
    expect(seen.shown.facts).toContain(back.id);
    expect(seen.shown.facts).not.toContain(bangkok!.id);
  });

  it("keeps a pinned fact against extraction, first in the prompt's facts, until an edit changes it", async () => {
    await open();
    await graph.runTurn({ ...live, message: "I live in Bangkok" });
    const bangkok = (await factNamed("Bangkok"))!;
    const pinned = await graph.updateFact(user, bangkok.id, { pinned: true });
    expect(pinned).toMatchObject({ id: bangkok.id, pinned: true, value: "Bangkok" });
    expect(await graph.updateFact(user, bangkok.id, { pinned: true })).toEqual(pinned); // idempotent

    await graph.runTurn({ ...live, message: "I live in Paris" });
    expect((await graph.listFacts(user, { current: true })).filter((f) => f.key === bangkok.key).map((f) => f.value)).toEqual(["Bangkok"]);
    const turn = await graph.runTurn({ ...live, message: "what do you know about me?" });
    expect(turn.memoryContext.recalled?.facts[0]).toMatchObject({ id: bangkok.id, pinned: true });

    const moved = await graph.updateFact(user, bangkok.id, { value: "Paris" });
    expect(moved).toMatchObject({ value: "Paris", pinned: true, source: "edit" });
    const unpinned = await graph.updateFact(user, moved.id, { pinned: false });
    expect(unpinned.pinned).toBeUndefined();
  });

  it("deletes a fact with its versions for real (read from the database) once its undo window has passed, marking summaries of its message stale", async () => {
    let skew = 0;
    await open({ now: () => new Date(Date.now() + skew) });
    await graph.runTurn({ ...live, message: "My name is Anong" });
    await graph.runTurn({ ...live, message: "I like jazz a lot" });
    await graph.settled();
    const name = (await factNamed("Anong"))!;
    const summaries = await graph.listSummaries(user);
    expect(summaries.length).toBeGreaterThan(0);
    expect((await backend.rows(name.id)).items).toBe(1);

    expect(await graph.deleteFact(user, name.id)).toMatchObject({ facts: 1, staleSummaries: 1, redactedMessages: 1 });
    // Within the undo window only the undo record holds it (a namespace nothing the model reads, searches or exports).
    expect(await backend.rows(name.id)).toEqual({ items: 1, index: 0, vectors: 0 });
    expect(await backend.rows(name.id, "fact-undo")).toEqual({ items: 1, index: 0, vectors: 0 });
    skew = UNDO_WINDOW_MS + 1_000;
    // The user's next delete sweeps the records whose window has passed.
    expect(await graph.deleteFact(user, name.id)).toEqual({ facts: 0, staleSummaries: 0, redactedMessages: 0, redactedRecords: 0 });
    expect(await backend.rows(name.id)).toEqual({ items: 0, index: 0, vectors: 0 });
    await expect(graph.getFact(user, name.id)).rejects.toMatchObject({ code: "FACT_NOT_FOUND" });
    expect((await graph.getSummary(user, summaries[0]!.id)).stale).toBe(true);
    // A stale summary no longer reaches the prompt; a corrected one does again.
    const turn = await graph.runTurn({ ...user, sessionId: "other", message: "hello there" });
    expect(turn.memoryContext.recalled?.summaries).toEqual([]);
    const corrected = await graph.updateSummary(user, summaries[0]!.id, { text: "The user likes jazz." });
    expect(corrected.stale).toBeUndefined();
  });

  it("corrects and deletes one stored message: re-indexed, then gone with its index rows, vector, event and facts", async () => {
    await open();
    await graph.runTurn({ ...live, message: "My cat Mali is sick", messageId: "m1" });
    await graph.runTurn({ ...live, message: "I want to cancel my order 42 now", messageId: "m2" });
    await graph.settled();
    expect(await graph.getMessage(live, "m1")).toMatchObject({ id: "m1", role: "user", text: "My cat Mali is sick" });
    // The vector may be written after the turn (the store embeds when it is free).
    await vi.waitFor(async () => expect(await backend.rows("m1", "messages")).toEqual({ items: 1, index: 1, vectors: 1 }), { timeout: 15_000 });
    await vi.waitFor(async () => expect((await backend.rows("m2", "messages")).vectors).toBe(1), { timeout: 15_000 });

    await graph.updateMessage(live, "m1", { text: "My dog Bruno is sick" });
    const found = await graph.search({ ...user, query: "Bruno" });
    expect(found.hits.map((hit) => hit.id)).toContain("m1");
    expect((await graph.search({ ...user, query: "Mali" })).hits.map((hit) => hit.id)).not.toContain("m1");

    const event = await graph.getEvent(user, "m2");
    expect(event).toMatchObject({ messageId: "m2", sessionId: "live" });
    const m2Reply = (await graph.listMessages(live)).find((message) => message.parentId === "m2");
    const deleted = await graph.deleteMessage(live, "m2");
    expect(deleted).toMatchObject({ messages: 1, events: 1, relinked: 1 });
    // Nothing keyed by it is left: message, index rows, vector, event, turn record, memory-context record.
    expect(await backend.rows("m2")).toEqual({ items: 0, index: 0, vectors: 0 });
    expect(await graph.deleteMessage(live, "m2")).toMatchObject({ messages: 0, events: 0 });
    await expect(graph.getMessage(live, "m2")).rejects.toMatchObject({ code: "MESSAGE_NOT_FOUND" });
    await expect(graph.getEvent(user, "m2")).rejects.toMatchObject({ code: "EVENT_NOT_FOUND" });
    // The reply that answered it follows the message before it: the thread stays whole.
    expect((await graph.getMessage(live, m2Reply!.id)).parentId).not.toBe("m2");
    expect((await graph.sessionMessages(live))?.map((m) => m.id)).not.toContain("m2");
  });

  it("takes a deleted message out of its session's window and node memory, and a corrected one's text into it, so the next prompt has neither old", async () => {
    const model = new RecordingChatModel(["Noted."]);
    await open({ chatModel: model });
    await graph.runTurn({ ...live, message: "My cat Mali is sick", messageId: "w1" });
    await graph.runTurn({ ...live, message: "I want to cancel my order 42 now", messageId: "w2" });
    await graph.settled();
    const window = async () => (await graph.sessionState(live))!;
    expect((await window()).messages.map((m) => m.id)).toContain("w2");

    await graph.updateMessage(live, "w1", { text: "My dog Bruno is sick" });
    expect(await graph.deleteMessage(live, "w2")).toMatchObject({ messages: 1 });
    const state = await window();
    expect(state.messages.map((m) => m.id)).not.toContain("w2");
    expect(Object.values(state.nodeMessages).flat().map((m) => sourceIdOf(m.id ?? ""))).not.toContain("w2");
    expect(state.messages.find((m) => m.id === "w1")?.content).toBe("My dog Bruno is sick");
    // What the old text alone stated is no longer a fact.
    expect((await graph.listFacts(user)).map((fact) => fact.value)).not.toContain("Mali");
    expect((await graph.sessionMessages(live))?.map((m) => m.id)).not.toContain("w2");

    // The newest message (the last reply) deleted: the session goes on from its parent.
    const leaf = state.session.lastMessageId!;
    const leafParent = (await graph.getMessage(live, leaf)).parentId;
    await graph.deleteMessage(live, leaf);
    expect((await window()).session.lastMessageId).toBe(leafParent);

    const next = await graph.runTurn({ ...live, message: "What did I tell you before?", messageId: "w3" });
    const prompt = model.prompts.at(-1)!.map((m) => m.text).join("\n");
    expect(prompt).toContain("Bruno");
    expect(prompt).not.toMatch(/order 42|Mali/);
    expect(next.memoryContext.text).not.toMatch(/order 42|Mali/);
    expect((await graph.getMessage(live, "w3")).parentId).toBe(leafParent);
    expect((await graph.sessionMessages(live))?.map((m) => m.id)).toEqual(expect.not.arrayContaining(["w2", leaf]));
  });

  it("searches every layer with filters: kind, session, time range, event type, importance, field equality; each hit with its score parts", async () => {
    await open();
    await graph.runTurn({ ...live, message: "I want to cancel my order 42 now", messageId: "c1" });
    await graph.runTurn({ ...user, sessionId: "other", message: "My order 77 never arrived, this is terrible", messageId: "c2" });
    await graph.runTurn({ ...live, message: "I live in Bangkok", messageId: "c3" });
    const all = await graph.searchItems({ ...user, query: "order" });
    expect(all.map((hit) => hit.kind)).toEqual(expect.arrayContaining(["message", "event"]));
    expect(all.map((hit) => hit.kind)).not.toContain("fact"); // no fact mentions an order
    const message = all.find((hit) => hit.kind === "message")!;
    expect(message.scores.lexical).toBeGreaterThan(0);
    expect(message.scores.fused).toBe(message.score);
    const events = await graph.searchItems({ ...user, query: "order", kinds: ["event"] });
    expect(events.map((hit) => hit.id).sort()).toEqual(["c1", "c2"]);
    expect(events[0]?.scores.importance).toBeGreaterThan(0);
    expect((await graph.searchItems({ ...user, query: "order", kinds: ["event"], sessionId: "other" })).map((hit) => hit.id)).toEqual(["c2"]);
    const type = (await graph.getEvent(user, "c2")).type;
    const ofType = await graph.searchItems({ ...user, query: "order", kinds: ["event"], eventType: type });
    expect(ofType.map((hit) => hit.id)).toContain("c2");
    for (const hit of ofType) expect((await graph.getEvent(user, hit.id)).type).toBe(type);
    expect(await graph.searchItems({ ...user, query: "order", kinds: ["event"], minImportance: 1.0 })).toEqual([]);
    expect(await graph.searchItems({ ...user, query: "order", to: "2000-01-01T00:00:00Z" })).toEqual([]);
    expect((await graph.searchItems({ ...user, query: "order", kinds: ["message"], metadata: { role: "assistant" } })).every((hit) => !["c1", "c2"].includes(hit.id))).toBe(true);
    expect((await graph.searchItems({ ...user, query: "Bangkok", kinds: ["fact"] })).map((hit) => hit.text)).toEqual(["location city: Bangkok"]);
    await expect(graph.searchItems({ ...user, query: "x", kinds: ["robot"] } as never)).rejects.toMatchObject({ code: "INVALID_INPUT", field: "kinds.0" });
  });

  it("lists, corrects and deletes events page by page, and lists messages of a session newest first", async () => {
    await open();
    for (const [i, message] of ["I want to cancel my order 41 now", "My parcel 77 never arrived, this is terrible", "Refund my payment please"].entries()) {
      await graph.runTurn({ ...live, message, messageId: `e${i}` });
    }
    const events = await graph.listEvents(user, { limit: 2 });
    expect(events).toHaveLength(2);
    const rest = await graph.listEvents(user, { limit: 2, offset: 2 });
    const ids = [...events, ...rest].map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length); // pages do not overlap
    const corrected = await graph.updateEvent(user, events[0]!.id, { importance: 0.95, type: "COMPLAINT" });
    expect(corrected).toMatchObject({ importance: 0.95, type: "COMPLAINT" });
    expect(await graph.deleteEvent(user, events[0]!.id)).toEqual({ events: 1 });
    expect(await graph.deleteEvent(user, events[0]!.id)).toEqual({ events: 0 });
    await expect(graph.listEvents(user, { limit: 0 })).rejects.toMatchObject({ code: "INVALID_INPUT", field: "limit" });

    const page = await graph.listMessages(live, { limit: 2 });
    expect(page).toHaveLength(2);
    expect(page.every((message) => message.sessionId === "live")).toBe(true);
    expect((await graph.listMessages(user, { limit: 500 })).length).toBe(6);
    // Tenant-scoped: another tenant sees none of it.
    expect(await graph.listMessages({ ...user, tenantId: "someone-else" })).toEqual([]);
    await expect(graph.getEvent({ ...user, tenantId: "someone-else" }, "e1")).rejects.toMatchObject({ code: "EVENT_NOT_FOUND" });
    expect(await graph.persistence.store.search(namespaces.turnContexts(live), { limit: 10 })).toHaveLength(3);
  });
});
