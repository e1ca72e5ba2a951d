import { InMemoryStore, MemorySaver, type BaseStore } from "@langchain/langgraph";
import { createMemoryGraph } from "../../src/index.js";
import { SqliteStore } from "../../src/storage/sqlite/store.js";
import type { HybridOptions } from "../../src/memory/ranking/hybrid.js";

const SESSIONS = [0, 1, 2].map((s) => ({
  sessionId: `s${s}`,
  startedAt: `2026-01-0${s + 1}T10:00:00.000Z`,
  messages: [
    { id: `m${s}a`, role: "user" as const, text: s === 1 ? "I renewed my passport today" : "Can you help me plan a picnic?", createdAt: `2026-01-0${s + 1}T10:00:00.000Z` },
    { id: `m${s}b`, role: "assistant" as const, text: "Sure, here are a few ideas to start with.", createdAt: `2026-01-0${s + 1}T10:00:01.000Z` },
  ],
}));

/** The share of its neighbour's score the assistant's reply receives, for `query`. */
async function lentOn(store: BaseStore, query: string): Promise<number> {
  const memory = await createMemoryGraph({ persistence: { store, checkpointer: new MemorySaver() }, embeddings: null, chatModel: null, logger: false });
  const user = { tenantId: "t", userId: "u" };
  try {
    await memory.importSessions(user, SESSIONS);
    const { hits } = await memory.search({ ...user, query, limit: 5 });
    return hits.find((hit) => hit.id === "m1b")?.scores.context ?? 0;
  } finally {
    await memory.close();
  }
}

describe("a sum or an order of several things is ranked as a list (asksForAggregate)", () => {
  const sqlite = (hybrid?: HybridOptions) => SqliteStore.open(":memory:", hybrid ? { hybrid } : {});

  it("lends neighbours a list's share on SQLite and in memory, and not with aggregateAsList false", async () => {
    const aggregate = "What is the total I paid for the passport I renewed?";
    const plain = await lentOn(sqlite(), "What did I pay for the passport I renewed?");
    const asList = await lentOn(sqlite(), aggregate);
    expect(plain).toBeGreaterThan(0);
    expect(asList).toBeCloseTo(plain * 0.6, 9); // listNeighbourWeight 0.3 against neighbourWeight 0.5
    expect(await lentOn(new InMemoryStore(), aggregate)).toBeCloseTo(asList, 9);
    expect(await lentOn(sqlite({ aggregateAsList: false }), aggregate)).toBeCloseTo(plain, 9);
  });
});
