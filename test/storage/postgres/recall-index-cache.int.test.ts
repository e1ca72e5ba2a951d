import pg from "pg";
import { PostgresStore } from "../../../src/storage/postgres/store.js";
import { createTempDatabase } from "../../support/postgres.js";

/**
 * The Postgres store's in-process recall index, seen from two stores on one database (two
 * processes' worth of caches): what one writes, updates or deletes, the other ranks by at once,
 * its index cached or not; and the cache stays within its bound, evicting whole users.
 */
let database: Awaited<ReturnType<typeof createTempDatabase>>;
const stores: PostgresStore[] = [];

beforeAll(async () => {
  database = await createTempDatabase();
}, 60_000);

afterAll(async () => {
  for (const store of stores) await store.close();
  await database.drop();
}, 60_000);

function open(options: ConstructorParameters<typeof PostgresStore>[1] = {}): PostgresStore {
  const store = PostgresStore.fromConnString(database.url, { schema: "cache_test", ...options });
  stores.push(store);
  return store;
}

const ns = (user: string, session = "s1") => ["t1", "users", user, "sessions", session, "messages"];
const prefix = (user: string) => ["t1", "users", user, "sessions"];
const keys = async (store: PostgresStore, user: string, query: string) => (await store.search(prefix(user), { query, limit: 5 })).map((hit) => hit.key);

it("ranks by what another store wrote, rewrote and deleted, on its next search", async () => {
  const [a, b] = [open(), open()];
  await a.put(ns("u1"), "m1", { role: "user", text: "My sister moved to Utrecht." });
  expect(await keys(b, "u1", "Utrecht")).toEqual(["m1"]); // b builds its index of u1 here
  await a.put(ns("u1", "s2"), "m2", { role: "user", text: "We adopted a greyhound." });
  expect(await keys(b, "u1", "greyhound")).toEqual(["m2"]);
  await a.put(ns("u1"), "m1", { role: "user", text: "My sister moved to Lisbon." });
  expect(await keys(b, "u1", "Utrecht")).toEqual([]);
  expect(await keys(b, "u1", "Lisbon")).toEqual(["m1"]);
  await a.delete(ns("u1", "s2"), "m2");
  expect(await keys(b, "u1", "greyhound")).toEqual([]);
  await a.put(ns("u1", "s3"), "m3", { role: "user", text: "Another greyhound joined us." });
  await a.deleteNamespacePrefix(prefix("u1"));
  expect(await keys(b, "u1", "greyhound Lisbon")).toEqual([]);
}, 60_000);

it("keeps its indexes' memory within maxCachedBytes, evicting the least recently used user", async () => {
  const users = ["v1", "v2", "v3"];
  const writer = open();
  for (const user of users) {
    await writer.batch(Array.from({ length: 20 }, (_, i) => ({ namespace: ns(user), key: `m${i}`, value: { role: "user", text: `note ${i} about ${user} and tea` } })));
  }
  type Cache = { size: number; bytes: number };
  const cacheOf = (store: PostgresStore) => (store as unknown as { cache: Cache }).cache;
  // What two users' indexes take, measured by a store without a tight bound.
  for (const user of users.slice(0, 2)) await keys(writer, user, "tea");
  const two = cacheOf(writer).bytes;
  expect(two).toBeGreaterThan(0);
  const store = open({ indexCache: { maxCachedBytes: two } });
  for (const user of users) expect(await keys(store, user, "tea")).toHaveLength(5);
  expect(cacheOf(store).bytes).toBeLessThanOrEqual(two);
  expect(cacheOf(store).size).toBe(40);
  // The evicted user is indexed again on demand, ranked the same.
  expect(await keys(store, "v1", "note 3 tea")).toContain("m3");
}, 60_000);

it("reads the change feed and a warm search's rows in one round trip, and ranks again when another store changed the user", async () => {
  const [a, b] = [open(), open()];
  await a.batch(Array.from({ length: 8 }, (_, i) => ({ namespace: ns("w1"), key: `k${i}`, value: { role: "user", text: `kayak trip number ${i} on the lake` } })));
  await a.put(ns("w2"), "x", { role: "user", text: "kayak" });
  const search = async () => (await b.search(prefix("w1"), { query: "kayak river", limit: 3 })).map((hit) => [hit.key, hit.value.text]);
  const first = await search();
  expect(first).toHaveLength(3);
  await b.indexSnapshotsSettled();
  const queries = vi.spyOn(pg.Client.prototype, "query");
  try {
    expect(await search()).toEqual(first);
    expect(queries).toHaveBeenCalledTimes(1);
    // Another user's write changes nothing of w1's ranking: still one round trip.
    await a.put(ns("w2"), "y", { role: "user", text: "kayak river" });
    await b.indexSnapshotsSettled();
    queries.mockClear();
    expect(await search()).toEqual(first);
    expect(queries).toHaveBeenCalledTimes(1);
  } finally {
    queries.mockRestore();
  }
  // A new best hit another store wrote, and one of the page it deleted: the next search ranks again and reads the row it lacks.
  await a.put(ns("w1", "s2"), "new", { role: "user", text: "kayak down the river, kayak all day" });
  await a.delete(ns("w1"), String(first[1]?.[0]));
  const after = await search();
  expect(after[0]).toEqual(["new", "kayak down the river, kayak all day"]);
  expect(after.map(([key]) => key)).not.toContain(first[1]?.[0]);
  expect(after).toHaveLength(3);
}, 60_000);
