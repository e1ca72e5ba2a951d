import { MemorySaver } from "@langchain/langgraph";
import { createMemoryGraph } from "../../src/index.js";
import { favourTimeWindow, timeWindowOf, type TimeWindow } from "../../src/memory/query-window.js";
import { SqliteStore } from "../../src/storage/sqlite/store.js";

// A Tuesday, late evening.
const ASKED = new Date("2023-05-30T23:40:00.000Z");
const DAY = 86_400_000;
const iso = (window: TimeWindow | undefined) => (window ? [window.from.toISOString(), window.to.toISOString()] : undefined);

describe("timeWindowOf", () => {
  it.each([
    // Ten days back, give or take a quarter of it.
    { query: "What kitchen appliance did I buy 10 days ago?", window: ["2023-05-18T11:40:00.000Z", "2023-05-23T11:40:00.000Z"] },
    { query: "Where did I go a couple of weeks ago?", window: [new Date(ASKED.getTime() - 17.5 * DAY).toISOString(), new Date(ASKED.getTime() - 10.5 * DAY).toISOString()] },
    // The Saturday before the day asked, a day either side.
    { query: "I received a piece of jewelry last Saturday from whom?", window: ["2023-05-26T00:00:00.000Z", "2023-05-29T00:00:00.000Z"] },
    { query: "How much did I spend on workshops in the past three months?", window: [new Date(ASKED.getTime() - (3 * 30.44 + 1) * DAY).toISOString(), ASKED.toISOString()] },
    { query: "What did I start earlier this year?", window: ["2023-01-01T00:00:00.000Z", ASKED.toISOString()] },
    { query: "What did I cook last month?", window: [new Date(ASKED.getTime() - 2 * 30.44 * DAY).toISOString(), ASKED.toISOString()] },
  ])("$query", ({ query, window }) => {
    expect(iso(timeWindowOf(query, ASKED))).toEqual(window);
  });

  it.each([
    "Where did I go last summer?", // a season is not placed
    "What will I do next week?", // the future holds no message
    "I'm visiting the music store this weekend. Any tips?", // mostly the coming weekend
    "What is the order of the museums I visited from earliest to latest?",
    "What did Joanna find in old notebooks last week?", // not the asker's own past
    "What kitchen appliance did I buy?",
  ])("%s → no window", (query) => {
    expect(timeWindowOf(query, ASKED)).toBeUndefined();
  });
});

describe("favourTimeWindow", () => {
  const window: TimeWindow = { from: new Date("2023-05-01T00:00:00Z"), to: new Date("2023-05-31T00:00:00Z") };
  const hits = [
    { id: "old", score: 1, at: "2023-01-10T00:00:00Z" },
    { id: "inside", score: 0.8, at: "2023-05-20T00:00:00Z" },
    { id: "older", score: 0.5, at: "2022-12-01T00:00:00Z" },
  ];
  const at = (hit: { at: string }) => hit.at;

  it("lifts the hits written inside the window by the weight and normalises again", () => {
    const favoured = favourTimeWindow(hits, window, 0.3, at);
    expect(favoured.map((hit) => hit.id)).toEqual(["inside", "old", "older"]);
    expect(favoured.map((hit) => hit.score)).toEqual([1, 1 / 1.1, 0.5 / 1.1]);
  });

  it("is bounded: a small weight does not lift a hit past one well above it", () => {
    expect(favourTimeWindow(hits, window, 0.1, at).map((hit) => hit.id)).toEqual(["old", "inside", "older"]);
  });

  it("changes nothing with weight 0, no hit inside or every hit inside", () => {
    const always: TimeWindow = { from: new Date("2020-01-01T00:00:00Z"), to: new Date("2024-01-01T00:00:00Z") };
    expect(favourTimeWindow(hits, always, 0.5, at)).toEqual(hits);
    expect(favourTimeWindow(hits, window, 0, at)).toEqual(hits);
    expect(favourTimeWindow(hits.filter((hit) => hit.id !== "inside"), window, 0.5, at)).toEqual(hits.filter((hit) => hit.id !== "inside"));
  });
});

describe("memory.search asOf", () => {
  const SESSIONS = ["2023-03-01", "2023-05-20"].map((day, s) => ({
    sessionId: `s${s}`,
    startedAt: `${day}T10:00:00.000Z`,
    messages: [{ id: `m${s}`, role: "user" as const, text: s === 0 ? "I bought a blender" : "I bought a new blender for my smoothies at the mall", createdAt: `${day}T10:00:00.000Z` }],
  }));

  async function ranked(timeWindowWeight: number, asOf?: string | Date): Promise<string[]> {
    const memory = await createMemoryGraph({ persistence: { store: SqliteStore.open(":memory:"), checkpointer: new MemorySaver() }, embeddings: null, chatModel: null, logger: false, limits: { recall: { timeWindowWeight } } });
    const user = { tenantId: "t", userId: "u" };
    try {
      await memory.importSessions(user, SESSIONS);
      const { hits } = await memory.search({ ...user, query: "What blender did I buy 10 days ago?", limit: 5, ...(asOf ? { asOf } : {}) });
      return hits.map((hit) => hit.id);
    } finally {
      await memory.close();
    }
  }

  it("places the question's time against asOf: the message of ten days before comes first", async () => {
    const off = await ranked(0, "2023-05-30T12:00:00Z");
    expect(off[0]).toBe("m0");
    expect(await ranked(0.5, "2023-05-30T12:00:00Z")).toEqual(["m1", "m0"]);
    expect(await ranked(0.5, new Date("2023-05-30T12:00:00Z"))).toEqual(["m1", "m0"]);
    // Asked now, ten days ago holds neither: the order is the ranking's own.
    expect(await ranked(0.5)).toEqual(off);
  });

  it("refuses an asOf that is not a time", async () => {
    await expect(ranked(0.5, "last Tuesday")).rejects.toMatchObject({ code: "INVALID_INPUT" });
    await expect(ranked(0.5, new Date("nonsense"))).rejects.toMatchObject({ code: "INVALID_INPUT" });
  });
});
