import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore, MemorySaver, type BaseStore } from "@langchain/langgraph";
import { createMemoryGraph } from "../../src/index.js";
import { PostgresStore } from "../../src/storage/postgres/store.js";
import { SqliteStore } from "../../src/storage/sqlite/store.js";
import { createTempDatabase } from "../support/postgres.js";
import { RECALL_FIXTURES, tieGroups, type RecallFixture } from "../support/recall-fixtures.js";

/**
 * The recall contract: the same fixtures, written and searched through the public API
 * (`importSessions`, `search`), return the same ranked ids (ties aside) on every engine. A new
 * engine passes it or does not ship. `sqlite_fresh` and `postgres_fresh` search through a new store
 * (a fresh process's empty recall cache) over what another store wrote: it reads the persisted
 * recall index and the writes and deletions made after it, and must rank as a full build does.
 */
const ENGINES = ["sqlite", "postgres", "memory", "sqlite_fresh", "postgres_fresh"] as const;
type Engine = (typeof ENGINES)[number];
const dir = mkdtempSync(join(tmpdir(), "recall-contract-"));

let database: Awaited<ReturnType<typeof createTempDatabase>>;
const opened: { close(): Promise<void> | void }[] = [];

beforeAll(async () => {
  database = await createTempDatabase();
}, 60_000);

afterAll(async () => {
  for (const store of opened) await store.close();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

function storeOf(engine: Engine, name: string): BaseStore {
  if (engine === "memory") return new InMemoryStore();
  const store = engine.startsWith("sqlite")
    ? SqliteStore.open(engine === "sqlite" ? ":memory:" : join(dir, `${name}.db`))
    : PostgresStore.fromConnString(database.url, { schema: `contract_${name}` });
  opened.push(store);
  return store;
}

const isFresh = (engine: Engine) => engine.endsWith("_fresh");

/** Waits for the recall index snapshots `store` scheduled (stores that persist none have nothing to wait for). */
async function settle(store: BaseStore): Promise<void> {
  await (store as { indexSnapshotsSettled?: () => Promise<void> }).indexSnapshotsSettled?.();
}

/** A memory graph on `store`, which it closes with itself. */
const graphOn = (store: BaseStore) => createMemoryGraph({ persistence: { store, checkpointer: new MemorySaver() }, embeddings: null, chatModel: null, logger: false });

async function rankedOn(engine: Engine, fixture: RecallFixture, key: string): Promise<Map<string, { id: string; scores: { lexical: number | null; context: number | null } }[]>> {
  const writer = storeOf(engine, key);
  let memory = await graphOn(writer);
  const user = { tenantId: "contract", userId: key };
  const out = new Map<string, { id: string; scores: { lexical: number | null; context: number | null } }[]>();
  try {
    const half = Math.ceil(fixture.sessions.length / 2);
    for (const session of fixture.sessions.slice(0, half)) await memory.importSessions(user, [session]);
    // The snapshot is of the first half; the second half is written after it.
    await settle(writer);
    for (const session of fixture.sessions.slice(half)) await memory.importSessions(user, [session]);
    if (isFresh(engine)) {
      await settle(writer);
      await memory.close();
      memory = await graphOn(storeOf(engine, key));
    }
    for (const query of fixture.queries) out.set(query, (await memory.search({ ...user, query, limit: 20 })).hits);
  } finally {
    await memory.close();
  }
  return out;
}

describe.each(RECALL_FIXTURES.map((fixture, i) => [fixture.name, fixture, i] as const))("recall contract on %s fixtures", (_name, fixture, i) => {
  const results = new Map<Engine, Awaited<ReturnType<typeof rankedOn>>>();
  beforeAll(async () => {
    for (const engine of ENGINES) results.set(engine, await rankedOn(engine, fixture, `${engine}_${i}`));
  }, 120_000);

  it.each(fixture.queries)("every engine ranks “%s” alike", (query) => {
    const reference = results.get("sqlite")?.get(query) ?? [];
    expect(reference.length).toBeGreaterThan(2);
    for (const engine of ENGINES) {
      const hits = results.get(engine)?.get(query) ?? [];
      expect({ engine, groups: tieGroups(hits) }).toEqual({ engine, groups: tieGroups(reference) });
    }
  });
});

/** A conversation with a fact that is deleted and one that is corrected after it was imported. */
const CORRECTED_SESSIONS = [
  {
    sessionId: "c1",
    startedAt: "2026-01-05T10:00:00.000Z",
    messages: [
      { id: "cm1", role: "user" as const, text: "My name is Anong and I live in Chiang Mai", createdAt: "2026-01-05T10:00:00.000Z" },
      { id: "cm2", role: "assistant" as const, text: "Nice to meet you, Anong from Chiang Mai!", createdAt: "2026-01-05T10:00:01.000Z" },
      { id: "cm3", role: "user" as const, text: "I work as a nurse at the city hospital", createdAt: "2026-01-05T10:01:00.000Z" },
    ],
  },
  {
    sessionId: "c2",
    startedAt: "2026-02-10T09:00:00.000Z",
    messages: [
      { id: "cm4", role: "user" as const, text: "Actually I moved to Bangkok last week", createdAt: "2026-02-10T09:00:00.000Z" },
      { id: "cm5", role: "assistant" as const, text: "Bangkok is a big move, good luck!", createdAt: "2026-02-10T09:00:01.000Z" },
      { id: "cm6", role: "user" as const, text: "My favourite food is mango sticky rice", createdAt: "2026-02-10T09:01:00.000Z" },
    ],
  },
];
const CORRECTED_QUERIES = ["where do I live now", "I work at the hospital", "Bangkok Chiang Mai move"];

async function correctedOn(engine: Engine, key: string) {
  const writer = storeOf(engine, key);
  let memory = await graphOn(writer);
  const user = { tenantId: "contract", userId: key };
  try {
    await memory.importSessions(user, CORRECTED_SESSIONS, { classify: true });
    await settle(writer); // the snapshot holds the values deleted and corrected below
    const facts = await memory.listFacts(user);
    const city = facts.find((fact) => fact.value === "Bangkok");
    const job = facts.find((fact) => /nurse/i.test(fact.value));
    if (!city || !job) throw new Error(`the fixture's facts were not learned: ${JSON.stringify(facts.map((f) => [f.key, f.value]))}`);
    await memory.deleteFact(user, city.id, { versions: "all" });
    await memory.updateFact(user, job.id, { value: "doctor" });
    if (isFresh(engine)) {
      await settle(writer);
      await memory.close();
      memory = await graphOn(storeOf(engine, key));
    }
    const out = new Map<string, { hits: Awaited<ReturnType<typeof memory.search>>["hits"]; context: string }>();
    for (const query of CORRECTED_QUERIES) {
      const { hits, memoryContext } = await memory.search({ ...user, query, limit: 20, withContext: true });
      out.set(query, { hits, context: memoryContext?.text ?? "" });
    }
    return out;
  } finally {
    await memory.close();
  }
}

describe("recall contract after a delete and a correction", () => {
  const results = new Map<Engine, Awaited<ReturnType<typeof correctedOn>>>();
  beforeAll(async () => {
    for (const engine of ENGINES) results.set(engine, await correctedOn(engine, `${engine}_corrected`));
  }, 120_000);

  it.each(CORRECTED_QUERIES)("every engine ranks “%s” alike and none shows the deleted value or the old one as current", (query) => {
    const reference = results.get("sqlite")?.get(query);
    expect(reference?.hits.length).toBeGreaterThan(0);
    for (const engine of ENGINES) {
      const found = results.get(engine)?.get(query);
      expect({ engine, groups: tieGroups(found?.hits ?? []), context: found?.context }).toEqual({ engine, groups: tieGroups(reference?.hits ?? []), context: reference?.context });
      expect(JSON.stringify(found)).not.toMatch(/Bangkok|Chiang Mai/);
      for (const line of (found?.context ?? "").split("\n").filter((l) => /nurse/i.test(l))) expect(line).toMatch(/is doctor, not nurse/i);
    }
  });
});
