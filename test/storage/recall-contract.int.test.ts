import { InMemoryStore, MemorySaver, type BaseStore } from "@langchain/langgraph";
import { createMemoryGraph } from "../../src/index.js";
import { PostgresStore } from "../../src/storage/postgres/store.js";
import { SqliteStore } from "../../src/storage/sqlite/store.js";
import { createTempDatabase } from "../support/postgres.js";
import { RECALL_FIXTURES, tieGroups, type RecallFixture } from "../support/recall-fixtures.js";

/**
 * The recall contract: the same fixtures, written and searched through the public API
 * (`importSessions`, `search`), return the same ranked ids (ties aside) on every engine. A new
 * engine passes it or does not ship.
 */
const ENGINES = ["sqlite", "postgres", "memory"] as const;
type Engine = (typeof ENGINES)[number];

let database: Awaited<ReturnType<typeof createTempDatabase>>;
const opened: { close(): Promise<void> | void }[] = [];

beforeAll(async () => {
  database = await createTempDatabase();
}, 60_000);

afterAll(async () => {
  for (const store of opened) await store.close();
  await database.drop();
}, 60_000);

function storeOf(engine: Engine, name: string): BaseStore {
  if (engine === "memory") return new InMemoryStore();
  const store = engine === "sqlite" ? SqliteStore.open(":memory:") : PostgresStore.fromConnString(database.url, { schema: `contract_${name}` });
  opened.push(store);
  return store;
}

async function rankedOn(engine: Engine, fixture: RecallFixture, key: string): Promise<Map<string, { id: string; scores: { lexical: number | null; context: number | null } }[]>> {
  const memory = await createMemoryGraph({ persistence: { store: storeOf(engine, key), checkpointer: new MemorySaver() }, embeddings: null, chatModel: null, logger: false });
  const user = { tenantId: "contract", userId: key };
  const out = new Map<string, { id: string; scores: { lexical: number | null; context: number | null } }[]>();
  try {
    for (const session of fixture.sessions) await memory.importSessions(user, [session]);
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
