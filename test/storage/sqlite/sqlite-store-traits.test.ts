import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteStore } from "../../../src/storage/sqlite/store.js";
import { IndexCache, indexCacheOf } from "../../../src/storage/sqlite/index-cache.js";
import { prefixRange } from "../../../src/storage/shared/namespace.js";
import type { RankedItem as RankedSearchItem, WeightedSearch } from "../../../src/memory/ports/store.js";
import { namespaces } from "../../../src/memory/namespaces.js";
import type { TranscriptRecord } from "../../../src/memory/records.js";
import { searchSimilar } from "../../../src/memory/similar.js";
import { saveTranscriptMessages } from "../../../src/memory/transcript.js";

// The user's own words against the assistant's longer reply on the same topic.
const TURNS: [TranscriptRecord["role"], string][] = [
  ["user", "I adopted a grey cat called Miso last spring."],
  ["assistant", "A grey cat like Miso loves a cat tree, grey cat toys and a cat bed; cats of every colour do."],
  ["user", "Which litter do you like?"],
  ["assistant", "Clumping clay."],
];
const scope = { tenantId: "t1", userId: "u1", sessionId: "s1" };
const prefix = namespaces.sessions(scope);

let dir: string;
let db: Database.Database;
let store: SqliteStore;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "sqlite-traits-"));
  db = new Database(join(dir, "memory.db"));
  store = new SqliteStore(db);
  store.setup();
  const records = TURNS.map(([role, text], i): TranscriptRecord => ({
    id: `m${i}`, role, text, parentId: i === 0 ? null : `m${i - 1}`, sessionId: "s1", createdAt: `2024-03-02T18:00:0${i}Z`,
  }));
  await saveTranscriptMessages(store, scope, records);
});
afterAll(() => {
  store.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function ranked(op: Omit<WeightedSearch, "namespacePrefix">): Promise<string[]> {
  const [hits] = (await store.batch([{ namespacePrefix: prefix, limit: 10, ...op }])) as { key: string }[][];
  return (hits ?? []).map((hit) => hit.key);
}

describe("SqliteStore search by role and question", () => {
  it("keeps the user's search index warm from the write on", () => {
    const { from, to } = prefixRange(prefix);
    expect(indexCacheOf(db).isCached(from, to)).toBe(true);
  });

  it("weighs a role down when the search asks, on the cached index and on FTS5 alike", async () => {
    const query = "grey cat Miso";
    expect((await ranked({ query }))[0]).toBe("m1");
    const weighted = await ranked({ query, labelWeights: { assistant: 0.15 } });
    expect(weighted[0]).toBe("m0");
    // A filter sends the search to FTS5, which must read roles the same way.
    expect((await ranked({ query, filter: { sessionId: "s1" } }))[0]).toBe("m1");
    // Below the first hit the paths part: FTS5 expands the query with feedback terms it cannot
    // filter by how common they are, and ranks the question m2 (lent to across m1) above m1.
    expect((await ranked({ query, labelWeights: { assistant: 0.15 }, filter: { sessionId: "s1" } }))[0]).toBe("m0");
  });

  it("lends the answer after a question more, on the cached index and on FTS5 alike", async () => {
    const once = new SqliteStore(db, { hybrid: { questionLend: 1, feedbackDocs: 0 } });
    const twice = new SqliteStore(db, { hybrid: { questionLend: 2, feedbackDocs: 0 } });
    const contextOfAnswer = async (s: SqliteStore, filter?: Record<string, unknown>): Promise<number> => {
      const hits = (await s.search(prefix, { query: "litter clay", limit: 10, filter })) as RankedSearchItem[];
      return hits.find((hit) => hit.key === "m3")?.ranking?.context ?? 0;
    };
    for (const filter of [undefined, { sessionId: "s1" }]) {
      const lent = await contextOfAnswer(once, filter);
      expect(lent).toBeGreaterThan(0);
      expect(await contextOfAnswer(twice, filter)).toBeCloseTo(2 * lent, 9);
    }
  });

  it("ranks a list question with its own neighbour weight (asksForList), on the cached index and on FTS5 alike", async () => {
    const tuned = new SqliteStore(db, { hybrid: { feedbackDocs: 0, neighbourWeight: 0.5, listNeighbourWeight: 0.25 } });
    const contextOfAnswer = async (asksForList: boolean | undefined, filter?: Record<string, unknown>): Promise<number> => {
      const hits = (await tuned.search(prefix, { query: "litter clay", limit: 10, filter, asksForList })) as RankedSearchItem[];
      return hits.find((hit) => hit.key === "m3")?.ranking?.context ?? 0;
    };
    for (const filter of [undefined, { sessionId: "s1" }]) {
      const plain = await contextOfAnswer(undefined, filter);
      expect(plain).toBeGreaterThan(0);
      expect(await contextOfAnswer(false, filter)).toBeCloseTo(plain, 9);
      expect(await contextOfAnswer(true, filter)).toBeCloseTo(plain / 2, 9);
    }
  });

  it("returns a turn found only as a neighbour when the search asks withNeighbours, on the cached index and on FTS5 alike", async () => {
    const plain = new SqliteStore(db, { hybrid: { feedbackDocs: 0 } });
    const keys = async (options: { withNeighbours?: boolean; filter?: Record<string, unknown> }): Promise<string[]> =>
      (await plain.search(prefix, { query: "litter", limit: 10, ...options })).map((hit) => hit.key);
    for (const filter of [undefined, { sessionId: "s1" }]) {
      expect(await keys({ filter })).toEqual(["m2"]);
      // m1 and m3 beside the match, m0 beyond the assistant's short reply m1 (bridgeLength).
      expect((await keys({ filter, withNeighbours: true })).sort()).toEqual(["m0", "m1", "m2", "m3"]);
    }
  });

  it("favours the speaker a query names, on the cached index and on FTS5 alike", async () => {
    const talk = { tenantId: "t1", userId: "u2", sessionId: "s1" };
    const turns: [speaker: string, text: string][] = [
      ["Ann", "I sang jazz at the festival with my jazz band"],
      ["Bo", "jazz festival, jazz all night"],
      ["Ann", "the festival was fun"],
    ];
    await saveTranscriptMessages(
      store,
      talk,
      turns.map(([speaker, text], i): TranscriptRecord => ({
        id: `t${i}`, role: speaker === "Ann" ? "user" : "assistant", speaker, text, parentId: null, sessionId: "s1", createdAt: `2024-03-02T18:00:0${i}Z`,
      })),
    );
    const isolated = (speakerWeight: number) => new SqliteStore(db, { hybrid: { feedbackDocs: 0, neighbourWeight: 0, speakerWeight } });
    const keys = async (s: SqliteStore, filter?: Record<string, unknown>): Promise<string[]> =>
      (await s.search(namespaces.sessions(talk), { query: "What jazz did Ann hear at the festival?", limit: 10, filter })).map((hit) => hit.key);
    for (const filter of [undefined, { sessionId: "s1" }]) {
      expect(await keys(isolated(1), filter)).toEqual(["t0", "t1", "t2"]);
      expect(await keys(isolated(0.5), filter)).toEqual(["t0", "t2", "t1"]);
    }
  });

  it("recall weighs the assistant down for a question about the user's own words", async () => {
    const similar = await searchSimilar(store, prefix, { query: "When did I adopt Miso, my grey cat?", limit: 2, maxCandidates: 50, minVectorScore: 0.45, excludeIds: new Set() });
    expect(similar[0]?.id).toBe("m0");
  });

  it("refuses a label weight outside 0..1 and changes nothing", async () => {
    await expect(ranked({ query: "cat", labelWeights: { assistant: -1 } })).rejects.toMatchObject({ code: "INVALID_INPUT" });
    expect(await ranked({ query: "grey cat Miso" })).toContain("m0");
  });
});

describe("IndexCache of a prefix too large to cache", () => {
  it("leaves it to FTS5 without counting it again, until the cache is cleared", () => {
    const { from, to } = prefixRange(prefix);
    const proto = Object.getPrototypeOf(db.prepare("SELECT 1")) as { get: (...params: unknown[]) => unknown };
    const original = proto.get;
    const counts: string[] = [];
    proto.get = function (this: Database.Statement, ...params: unknown[]) {
      if (this.source.includes("COUNT(*)")) counts.push(this.source);
      return original.apply(this, params);
    };
    const small = new IndexCache(db, 16, 2);
    try {
      expect(small.indexOf(from, to)).toBeUndefined();
      expect(counts).toHaveLength(1);
      expect(small.indexOf(from, to)).toBeUndefined();
      expect(counts).toHaveLength(1);
      small.clear();
      expect(small.indexOf(from, to)).toBeUndefined();
      expect(counts).toHaveLength(2);
    } finally {
      proto.get = original;
    }
    expect(new IndexCache(db, 16, 100).indexOf(from, to)?.size).toBe(TURNS.length);
  });
});
