import pg from "pg";
import { readFloor } from "../../bench/lib/read-floor.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { PostgresStore } from "../../src/storage/postgres/store.js";
import { createTempDatabase } from "../support/postgres.js";

/**
 * `bench:recall-fresh`'s read floor reads the snapshot a first recall reads: the one row of the
 * user's sessions range that a search with snapshots on writes, and refuses to time anything else.
 */
let database: Awaited<ReturnType<typeof createTempDatabase>>;
let db: pg.Client;
let store: PostgresStore;
const SCHEMA = "read_floor_test";

beforeAll(async () => {
  database = await createTempDatabase();
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
  store = PostgresStore.fromConnString(database.url, { schema: SCHEMA, indexCache: { snapshots: true } });
  await store.setup();
}, 60_000);

afterAll(async () => {
  await store.close();
  await db.end();
  await database.drop();
}, 60_000);

const scope = (userId: string, sessionId: string) => ({ tenantId: "bench", userId, sessionId });

test("times the snapshot of a searched user's sessions and the hits' rows", async () => {
  for (let i = 0; i < 12; i++) {
    await store.put(namespaces.transcript(scope("u1", `s${i % 3}`)), `m${i}`, { role: "user", text: `We walked the greyhound along the canal, day ${i}` });
  }
  const hits = await store.search(namespaces.sessions({ tenantId: "bench", userId: "u1" }), { query: "greyhound canal", limit: 5 });
  await store.indexSnapshotsSettled();
  expect(hits).toHaveLength(5);
  const ms = await readFloor(db, SCHEMA, "u1", hits.map((hit) => hit.key));
  expect(ms).toBeGreaterThan(0);
});

test("refuses a user whose sessions have no snapshot", async () => {
  await store.put(namespaces.transcript(scope("u2", "s0")), "m0", { role: "user", text: "Never searched, so never snapshotted" });
  await expect(readFloor(db, SCHEMA, "u2", ["m0"])).rejects.toThrow(/0 snapshots/);
});
