import { InMemoryStore, MemorySaver, type BaseStore } from "@langchain/langgraph";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createMemoryGraph, type ImportSession } from "../../src/index.js";
import { EVENT_MARKER, recordTerms } from "../../src/memory/ranking/event-marker.js";
import { rankHybrid, RecallIndex, recordIndexText, recordTraits, tokenize } from "../../src/memory/ranking/index.js";
import { indexSource } from "../../src/memory/ranking/index-source.js";
import { SqliteStore } from "../../src/storage/sqlite/store.js";

describe("recordTerms (the event marker)", () => {
  it.each([
    { value: { speaker: "Mel", text: "I just signed up for a pottery class!" }, marked: true },
    { value: { speaker: "Mel", text: "We went swimming with the kids." }, marked: true },
    { value: { text: "I just signed up for a pottery class!" }, marked: false },
    { value: { speaker: " ", text: "I just signed up for a pottery class!" }, marked: false },
    { value: { speaker: "Caro", text: "Wow, Mel, that's awesome!" }, marked: false },
    { value: { speaker: "Caro", text: "I went" }, marked: true },
  ])("$value.text ($value.speaker): $marked", ({ value, marked }) => {
    const text = recordIndexText(value) ?? "";
    const terms = recordTerms(value, text);
    expect(terms.slice(0, tokenize(text).length)).toEqual(tokenize(text));
    expect(terms.includes(EVENT_MARKER)).toBe(marked);
    expect(terms.length).toBe(tokenize(text).length + (marked ? 1 : 0));
  });

  it("is no term of any text", () => {
    expect(tokenize(`${EVENT_MARKER} § event`)).not.toContain(EVENT_MARKER);
    expect(recordTerms({ speaker: "Mel", text: "I went" }, "")).toEqual([]);
  });
});

/** Mel tells what she did; Caro answers her by name, and talks of other things. */
const TURNS: [id: string, speaker: string, text: string][] = [
  ["pottery", "Mel", "I signed up for a pottery class on Thursdays."],
  ["wow1", "Caro", "Wow, Mel, that's awesome!"],
  ["work", "Caro", "Work has been busy with reports and meetings all week."],
  ["swim", "Mel", "We went swimming at the lake with the kids."],
  ["wow2", "Caro", "So cool, Mel!"],
  ["news", "Caro", "The new library opens downtown next month."],
];

function sourceOf(marked: boolean) {
  const index = new RecallIndex();
  TURNS.forEach(([id, speaker, text], i) => {
    const value = { speaker, text };
    const indexText = recordIndexText(value) ?? "";
    index.add(id, marked ? recordTerms(value, indexText) : tokenize(indexText), "s", i, recordTraits(value));
  });
  return indexSource(index);
}

describe("rankHybrid favours a list question's named speaker's events (eventWeight)", () => {
  const query = tokenize("What things has Mel done?");
  const ids = (marked: boolean, options: Parameters<typeof rankHybrid>[3]) => rankHybrid(query, sourceOf(marked), undefined, { feedbackDocs: 0, ...options }).map((hit) => hit.id);

  it("ranks Mel's events first by default, the other speaker's reply first at 0", () => {
    expect(ids(true, { listQuery: true }).slice(0, 2)).toEqual(["swim", "pottery"]);
    expect(ids(true, { listQuery: true, eventWeight: 0 })[0]).toBe("wow2");
    expect(ids(false, { listQuery: true })[0]).toBe("wow2");
  });

  it("leaves the ranking alone for rows without the marker, for other questions and for a speaker not named", () => {
    expect(ids(false, { listQuery: true })).toEqual(ids(false, { listQuery: true, eventWeight: 0 }));
    expect(ids(true, {})).toEqual(ids(true, { eventWeight: 0 }));
    // Mel's swim matches "lake" and carries the marker, but Mel is not the one asked about.
    const other = tokenize("What things has Caro done at the lake?");
    const swim = (eventWeight: number) => rankHybrid(other, sourceOf(true), undefined, { listQuery: true, eventWeight }).find((hit) => hit.id === "swim")?.lexical;
    expect(swim(0)).toBeGreaterThan(0);
    expect(swim(0.3)).toBe(swim(0));
  });

  it("adds at most eventWeight of the best score", () => {
    const plain = rankHybrid(query, sourceOf(true), undefined, { feedbackDocs: 0, neighbourWeight: 0, listQuery: true, eventWeight: 0 });
    const lifted = rankHybrid(query, sourceOf(true), undefined, { feedbackDocs: 0, neighbourWeight: 0, listQuery: true, eventWeight: 0.3 });
    const best = Math.max(...plain.map((hit) => hit.lexical ?? 0));
    const lexicalOf = (hits: typeof plain, id: string) => hits.find((hit) => hit.id === id)?.lexical ?? 0;
    expect(lexicalOf(lifted, "pottery") - lexicalOf(plain, "pottery")).toBeCloseTo(0.3 * best, 9);
    expect(lexicalOf(lifted, "wow1")).toBe(lexicalOf(plain, "wow1"));
  });
});

describe("recall writes the marker and favours the events on every engine", () => {
  const user = { tenantId: "events", userId: "mel" };
  const session: ImportSession = {
    sessionId: "s1",
    startedAt: "2024-03-01T09:00:00.000Z",
    messages: TURNS.map(([id, speaker, text], i) => ({ id, role: "user" as const, speaker, text, createdAt: new Date(Date.UTC(2024, 2, 1, 9, i)).toISOString() })),
  };
  const hitsOn = async (store: BaseStore, query: string): Promise<string[]> => {
    const memory = await createMemoryGraph({ persistence: { store, checkpointer: new MemorySaver() }, embeddings: null, chatModel: null, logger: false });
    try {
      await memory.importSessions(user, [session]);
      return (await memory.search({ ...user, query, limit: 3 })).hits.map((hit) => hit.id);
    } finally {
      await memory.close();
    }
  };

  it("stores the marker with the terms of the turns that tell an event (SQLite)", async () => {
    const db = new Database(":memory:");
    const store = new SqliteStore(db);
    store.setup();
    await hitsOn(store, "What things has Mel done?");
    const rows = db.prepare("SELECT terms FROM store_fts").all() as { terms: string }[];
    expect(rows.filter((row) => row.terms.split(" ").includes(EVENT_MARKER))).toHaveLength(2);
    db.close();
  });

  it.each([
    { engine: "the in-memory store", make: (): BaseStore => new InMemoryStore() },
    { engine: "SQLite", make: (): BaseStore => SqliteStore.open(":memory:") },
  ])("on $engine: a list question about Mel reaches her events first", async ({ make }) => {
    expect((await hitsOn(make(), "What things has Mel done?")).slice(0, 2).sort()).toEqual(["pottery", "swim"]);
  });

  it("on SQLite with eventWeight 0: the replies come first", async () => {
    expect((await hitsOn(SqliteStore.open(":memory:", { hybrid: { eventWeight: 0 } }), "What things has Mel done?"))[0]).toMatch(/^wow/);
  });
});
