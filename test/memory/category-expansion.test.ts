import { InMemoryStore, MemorySaver, type BaseStore } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { createMemoryGraph, type ImportSession } from "../../src/index.js";
import { asksWhere } from "../../src/memory/query-subject.js";
import { categoryTermsOf, PLACE_CATEGORY } from "../../src/memory/ranking/category-kinds.js";
import { rankHybrid, RecallIndex, recordTraits, tokenize } from "../../src/memory/ranking/index.js";
import { hybridOptionsOf, indexSource } from "../../src/memory/ranking/index-source.js";
import { SqliteStore } from "../../src/storage/sqlite/store.js";

describe("categoryTermsOf", () => {
  it.each([
    { query: "What activities does Melanie partake in?", has: ["potteri", "swim", "paint", "hike"], lacks: ["activ", "melani"] },
    { query: "What are Joanna's hobbies?", has: ["potteri", "swim"], lacks: [] },
    { query: "What instruments does Tim play?", has: ["clarinet", "violin", "piano"], lacks: ["plai"] },
    { query: "Which cities has Jon visited?", has: ["paris", "rome"], lacks: [] },
    { query: "What pets does Nate have?", has: ["dog"], lacks: [] },
  ])("$query", ({ query, has, lacks }) => {
    const kinds = categoryTermsOf(tokenize(query));
    expect(kinds).toEqual(expect.arrayContaining(has));
    for (const term of lacks) expect(kinds).not.toContain(term);
  });

  it.each(["When did Caroline go to the support group?", "constructor toString hasOwnProperty", ""])("names no category: %j", (query) => {
    expect(categoryTermsOf(tokenize(query))).toEqual([]);
  });

  it("adds the kinds of place a \"Where …?\" question asks for (PLACE_CATEGORY)", () => {
    expect(categoryTermsOf(tokenize("Where has Melanie camped?"))).toEqual([]);
    const kinds = categoryTermsOf(tokenize("Where has Melanie camped?"), [PLACE_CATEGORY]);
    expect(kinds).toEqual(expect.arrayContaining(["beach", "mountain", "forest", "lake", "museum", "church", "gym"]));
    expect(kinds).not.toContain("camp");
    expect(categoryTermsOf(tokenize("What places has Joanna submitted her work to?"))).toEqual([]);
  });
});

describe("asksWhere", () => {
  it.each([
    { query: "Where has Melanie camped?", where: true },
    { query: "where did Caroline move from 4 years ago?", where: true },
    { query: "Thanks. Where is Gina's internship?", where: true },
    { query: "What type of show did Nate host where he taught vegan recipes?", where: false },
    { query: "Whereabouts is it?", where: false },
    { query: "Nowhere did I see it", where: false },
    { query: "When did Melanie camp?", where: false },
  ])("$query: $where", ({ query, where }) => {
    expect(asksWhere(query)).toBe(where);
  });
});

/** 24 turns of office chores and two that tell what the user does for fun, in words no question uses. */
function turns(): [id: string, text: string][] {
  const chores = Array.from({ length: 24 }, (_, i): [string, string] => [`c${i}`, `Note ${i}: the printer on floor ${i % 5} needs toner and paper again.`]);
  return [...chores.slice(0, 10), ["pottery", "I just signed up for a pottery class on Thursdays."], ...chores.slice(10), ["swim", "Off to go swimming with the kids now."]];
}

describe("rankHybrid with categoryTerms", () => {
  const index = new RecallIndex();
  turns().forEach(([id, text], i) => index.add(id, tokenize(text), "s", i, recordTraits({ text })));
  const source = indexSource(index);
  const ids = (options: Parameters<typeof rankHybrid>[3]) => rankHybrid(tokenize("What activities do I enjoy?"), source, undefined, { neighbourWeight: 0, ...options }).map((hit) => hit.id);

  it("reaches turns that share no word with the question, at categoryWeight", () => {
    expect(ids({})).toEqual([]);
    const kinds = categoryTermsOf(tokenize("What activities do I enjoy?"));
    expect(ids({ categoryTerms: kinds }).slice(0, 2).sort()).toEqual(["pottery", "swim"]);
    expect(ids({ categoryTerms: kinds, categoryWeight: 0 })).toEqual([]);
  });

  it("leaves out a kind held by more than feedbackMaxShare of the documents", () => {
    expect(ids({ categoryTerms: ["printer", "potteri"] }).filter((id) => id.startsWith("c"))).toEqual([]);
    expect(ids({ categoryTerms: ["printer"], feedbackMaxShare: 1 }).length).toBeGreaterThan(20);
  });

  it("is asked for by the search operation (hybridOptionsOf)", () => {
    expect(hybridOptionsOf(undefined, { categoryTerms: ["swim"], categoryWeight: 0.3 })).toEqual({ categoryTerms: ["swim"], categoryWeight: 0.3 });
    expect(hybridOptionsOf(undefined, { categoryTerms: [] })).toEqual({});
  });
});

describe("recall expands a list question with its category's kinds (limits.recall.categoryWeight)", () => {
  const user = { tenantId: "kinds", userId: "mel" };
  const session: ImportSession = {
    sessionId: "s1",
    startedAt: "2024-03-01T09:00:00.000Z",
    messages: turns().map(([id, text], i) => ({ id, role: "user" as const, text, createdAt: new Date(Date.UTC(2024, 2, 1, 9, i)).toISOString() })),
  };
  const hitsOn = async (store: BaseStore, categoryWeight: number | undefined, query: string): Promise<string[]> => {
    const limits = categoryWeight === undefined ? {} : { recall: { categoryWeight } };
    const memory = await createMemoryGraph({ persistence: { store, checkpointer: new MemorySaver() }, embeddings: null, chatModel: null, logger: false, limits });
    try {
      await memory.importSessions(user, [session]);
      return (await memory.search({ ...user, query, limit: 5 })).hits.map((hit) => hit.id);
    } finally {
      await memory.close();
    }
  };

  it.each([
    { engine: "the in-memory store", make: (): BaseStore => new InMemoryStore() },
    { engine: "SQLite", make: (): BaseStore => SqliteStore.open(":memory:") },
  ])("on $engine: found by default, not with the weight 0, not for a question that asks for no list", async ({ make }) => {
    expect((await hitsOn(make(), undefined, "What activities do I enjoy?")).slice(0, 2).sort()).toEqual(["pottery", "swim"]);
    expect(await hitsOn(make(), 0, "What activities do I enjoy?")).toEqual([]);
    expect(await hitsOn(make(), undefined, "Do I enjoy activities?")).toEqual([]);
  });

  it("on SQLite: a \"Where …?\" question reaches places it shares no word with, not with the weight 0", async () => {
    // The chores, and where the user has camped: by a lake, in the mountains (no "camp" in either).
    const places: ImportSession = {
      ...session,
      messages: session.messages.map((message) =>
        message.id === "pottery" ? { ...message, id: "lake", text: "Three nights by the lake with the kids, tent and all." } : message.id === "swim" ? { ...message, id: "mountains", text: "The kids loved the mountains in October." } : message,
      ),
    };
    const hits = async (categoryWeight: number | undefined, query: string): Promise<string[]> => {
      const limits = categoryWeight === undefined ? {} : { recall: { categoryWeight } };
      const memory = await createMemoryGraph({ persistence: { store: SqliteStore.open(":memory:"), checkpointer: new MemorySaver() }, embeddings: null, chatModel: null, logger: false, limits });
      try {
        await memory.importSessions(user, [places]);
        return (await memory.search({ ...user, query, limit: 5 })).hits.map((hit) => hit.id);
      } finally {
        await memory.close();
      }
    };
    expect((await hits(undefined, "Where have I camped?")).slice(0, 2).sort()).toEqual(["lake", "mountains"]);
    expect(await hits(0, "Where have I camped?")).toEqual([]);
    expect(await hits(undefined, "Have I camped?")).toEqual([]);
  });
});
