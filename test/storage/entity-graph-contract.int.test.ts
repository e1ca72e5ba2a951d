import { PostgresStore } from "../../src/storage/postgres/store.js";
import { SqliteStore } from "../../src/storage/sqlite/store.js";
import { describeEntityGraphContract, graphSnapshot } from "../support/entity-graph-contract.js";
import { createTempDatabase } from "../support/postgres.js";

let database: Awaited<ReturnType<typeof createTempDatabase>>;
const opened: PostgresStore[] = [];
let schemas = 0;

beforeAll(async () => {
  database = await createTempDatabase();
}, 60_000);

afterAll(async () => {
  for (const store of opened) await store.close();
  await database.drop();
}, 60_000);

function postgres(): PostgresStore {
  const store = PostgresStore.fromConnString(database.url, { schema: `graph_${(schemas += 1)}` });
  opened.push(store);
  return store;
}

describeEntityGraphContract("postgres", postgres);

it("Postgres holds the graph SQLite holds, walks it alike and ranks alike", async () => {
  const sqlite = await graphSnapshot(() => SqliteStore.open(":memory:"));
  const pg = await graphSnapshot(postgres);
  expect(sqlite.walk.length).toBeGreaterThan(0);
  expect(pg).toEqual(sqlite);
}, 60_000);
