import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryGraph, type MemoryGraph, type MemoryGraphOptions } from "../../src/app/create-memory-graph.js";
import { setLogLevel } from "../../src/logger.js";
import { REDACTED } from "../../src/memory/redaction.js";
import { HashedNgramEmbeddings } from "../../src/memory/ranking/index.js";
import { RecordingChatModel } from "../support/models.js";
import { createTempDatabase } from "../support/postgres.js";

setLogLevel("silent");

const backends: [string, () => Promise<{ options: MemoryGraphOptions; cleanup: () => Promise<void> | void }>][] = [
  [
    "SQLite",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-redact-"));
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
];

/** Every string of a JSON value that mentions `needle` (case-insensitive), with where it is. */
function mentions(value: unknown, needle: string, at = "$"): string[] {
  if (typeof value === "string") return value.toLowerCase().includes(needle.toLowerCase()) ? [`${at}: ${value}`] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => mentions(item, needle, `${at}[${i}]`));
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([key, field]) => mentions(field, needle, `${at}.${key}`));
  return [];
}

describe.each(backends)("what a person deletes or corrects, the model stops reading, on %s", (_name, make) => {
  let graph: MemoryGraph;
  let cleanup: () => Promise<void> | void;
  const user = { tenantId: `t-${randomUUID().slice(0, 8)}`, userId: "insp" };

  afterEach(async () => {
    await graph.close();
    await cleanup();
  });

  async function open(options: MemoryGraphOptions = {}): Promise<void> {
    const backend = await make();
    cleanup = backend.cleanup;
    graph = await createMemoryGraph({
      ...backend.options,
      ...options,
      embeddings: new HashedNgramEmbeddings(),
      chatModel: null,
      classifierModel: null,
      summaryModel: null,
      limits: { summaryInterval: 2 },
      ...options,
    });
  }

  it("takes the value out of every layer: context, search, summaries, export, the window; the rest of each message stays", async () => {
    await open();
    const s1 = { ...user, sessionId: "s1" };
    await graph.runTurn({ ...s1, message: "My name is Anong and I live in Chiang Mai" });
    await graph.runTurn({ ...s1, message: "Actually I moved to Bangkok last week" });
    await graph.runTurn({ ...s1, message: "I like jazz a lot" });
    await graph.settled();
    const facts = await graph.listFacts(user);
    const city = facts.find((fact) => fact.value === "Bangkok")!;
    const old = facts.find((fact) => fact.value === "Chiang Mai")!;
    expect(city.key).toBe(old.key);
    // Before: the values are in memory (so the assertions below can fail).
    expect(mentions(await graph.exportUser(user), "Bangkok").length).toBeGreaterThan(1);

    const deleted = await graph.deleteFact(user, city.id, { versions: "all" });
    expect(deleted).toMatchObject({ facts: 2 });
    expect(deleted.redactedMessages).toBeGreaterThanOrEqual(2);
    // The session's checkpoint: window, node memory and what the last turn left in the state.
    const state = await graph.sessionState(s1);
    expect(JSON.stringify(state)).toContain(REDACTED);
    expect(mentions(JSON.parse(JSON.stringify(state)), "Bangkok")).toEqual([]);

    // The next turn, in a new session and in the old one: no section of the memory context, no window.
    for (const sessionId of ["s2", "s1"]) {
      const turn = await graph.runTurn({ ...user, sessionId, message: "Where do I live? Which city did I move to?" });
      const context = { text: turn.memoryContext.text, recalled: turn.memoryContext.recalled, reply: turn.llmText };
      expect(mentions(context, "Bangkok")).toEqual([]);
      expect(mentions(context, "Chiang Mai")).toEqual([]);
    }
    const window = (await graph.sessionMessages({ ...s1 })) ?? [];
    expect(mentions(window, "Bangkok")).toEqual([]);
    expect(window.some((message) => message.text === `Actually I moved to ${REDACTED} last week`)).toBe(true);

    // Recall search finds the rest of the message, never the value.
    const { hits } = await graph.search({ ...user, query: "moved last week" });
    expect(hits.length).toBeGreaterThan(0);
    expect(mentions(hits, "Bangkok")).toEqual([]);
    const byValue = await graph.search({ ...user, query: "Bangkok", withContext: true });
    expect(mentions(byValue.hits, "Bangkok")).toEqual([]);
    expect(mentions(byValue.memoryContext, "Bangkok")).toEqual([]);

    // Summaries and the export: only the marker where the value was.
    const exported = await graph.exportUser(user);
    expect(mentions(exported, "Bangkok")).toEqual([]);
    expect(mentions(exported, "Chiang Mai")).toEqual([]);
    expect(mentions(exported, REDACTED).length).toBeGreaterThan(0);
    for (const summary of await graph.listSummaries(user)) expect(summary.text).not.toMatch(/Bangkok|Chiang Mai/);
    // The name, another fact of the same messages, stays.
    expect((await graph.listFacts(user, { current: true })).map((fact) => fact.value)).toContain("Anong");
  });

  it("deletes one version only: the current value stays when an older one goes", async () => {
    await open();
    const s1 = { ...user, sessionId: "s1" };
    await graph.runTurn({ ...s1, message: "I live in Rotterdam" });
    await graph.runTurn({ ...s1, message: "I moved to Utrecht" });
    await graph.settled();
    const facts = await graph.listFacts(user);
    const rotterdam = facts.find((fact) => fact.value === "Rotterdam")!;
    expect(await graph.deleteFact(user, rotterdam.id)).toMatchObject({ facts: 1 });
    const current = await graph.listFacts(user, { current: true });
    expect(current.map((fact) => fact.value)).toContain("Utrecht");
    const turn = await graph.runTurn({ ...user, sessionId: "s2", message: "Where do I live?" });
    expect(turn.memoryContext.text).toContain("Utrecht");
    expect(turn.memoryContext.text).not.toContain("Rotterdam");
  });

  it("a correction wins everywhere: every recalled line stating an old value says what is true now", async () => {
    await open();
    const s1 = { ...user, sessionId: "s1" };
    await graph.runTurn({ ...s1, message: "I live in Rotterdam" });
    await graph.runTurn({ ...s1, message: "I moved to Utrecht last month" });
    await graph.settled();
    const utrecht = (await graph.listFacts(user, { current: true })).find((fact) => fact.value === "Utrecht")!;
    await graph.updateFact(user, utrecht.id, { value: "Amsterdam" });

    for (const sessionId of ["s2", "s1"]) {
      const turn = await graph.runTurn({ ...user, sessionId, message: "Where do I live now?" });
      const lines = turn.memoryContext.text.split("\n");
      const stale = lines.filter((line) => /Rotterdam|Utrecht/.test(line));
      expect(stale.length).toBeGreaterThan(0); // the old statements are recalled…
      for (const line of stale) expect(line).toMatch(/location city is Amsterdam, not (Rotterdam|Utrecht)/); // …each with what is true now
      expect(lines.filter((line) => line.startsWith("- location city:"))).toEqual(["- location city: Amsterdam"]);
    }
  });

  it("a correction reaches the prompt's own history too: the session's earlier messages say what is true now", async () => {
    const model = new RecordingChatModel(["Noted."]);
    await open({ chatModel: model });
    const s1 = { ...user, sessionId: "s1" };
    await graph.runTurn({ ...s1, message: "I live in Rotterdam" });
    await graph.settled();
    const rotterdam = (await graph.listFacts(user, { current: true })).find((fact) => fact.value === "Rotterdam")!;
    await graph.updateFact(user, rotterdam.id, { value: "Amsterdam" });
    await graph.runTurn({ ...s1, message: "Where do I live now?" });
    const history = model.prompts.at(-1)!.filter((message) => message.getType() !== "system" && message.text.includes("Rotterdam"));
    expect(history.length).toBeGreaterThan(0);
    for (const message of history) expect(message.text).toMatch(/location city is Amsterdam, not Rotterdam/);
  });

  it("forgetting an entity takes its name out of the prompt, every layer and the session's checkpoint; the rest of each message stays", async () => {
    const model = new RecordingChatModel(["Noted."]);
    await open({ chatModel: model });
    const s1 = { ...user, sessionId: "s1" };
    await graph.runTurn({ ...s1, message: "My sister Priya moved to Pune for her new job" });
    await graph.runTurn({ ...s1, message: "Priya loves hiking in the hills near Pune" });
    await graph.runTurn({ ...s1, message: "I bought a bicycle for the weekends" });
    await graph.settled();
    expect(mentions(await graph.exportUser(user), "Priya").length).toBeGreaterThan(1);

    const deleted = await graph.deleteEntity(user, "Priya");
    expect(deleted).toMatchObject({ entities: 1 });
    expect(deleted.redactedMessages).toBeGreaterThanOrEqual(2);
    expect(mentions(JSON.parse(JSON.stringify(await graph.sessionState(s1))), "Priya")).toEqual([]);
    for (const sessionId of ["s2", "s1"]) {
      const turn = await graph.runTurn({ ...user, sessionId, message: "What is new with my sister in Pune?" });
      // What the model read: system prompt, memory, history and the message.
      expect(mentions(model.prompts.at(-1)!.map((message) => message.text), "Priya")).toEqual([]);
      expect(mentions(turn.memoryContext.text, "Priya")).toEqual([]);
      expect(turn.memoryContext.text).toContain("Pune");
    }
    expect((await graph.listEntities(user, { query: "priya" })).length).toBe(0);
  });
});
