import pg from "pg";
import { warmStoreReads, WARM_UP_USER } from "../../../src/memory/recall-warm-up.js";
import { PostgresStore } from "../../../src/storage/postgres/store.js";
import { createTempDatabase } from "../../support/postgres.js";

/**
 * Persisted recall indexes on Postgres: a store that builds a user's index writes its snapshot; a
 * new store (a fresh process's empty cache) reads it and the changes since, and ranks exactly as a
 * store that builds the index from every row; deleting or rewriting what a snapshot holds deletes
 * the snapshot in the same statement; a snapshot that cannot be read is rebuilt around.
 */
let database: Awaited<ReturnType<typeof createTempDatabase>>;
let sql: pg.Client;
const stores: PostgresStore[] = [];
const SCHEMA = "snapshot_test";

beforeAll(async () => {
  database = await createTempDatabase();
  sql = new pg.Client({ connectionString: database.url });
  await sql.connect();
}, 60_000);

afterAll(async () => {
  for (const store of stores) await store.close();
  await sql.end();
  await database.drop();
}, 60_000);

function open(options: ConstructorParameters<typeof PostgresStore>[1] = {}): PostgresStore {
  const store = PostgresStore.fromConnString(database.url, { schema: SCHEMA, ...options });
  stores.push(store);
  return store;
}

const ns = (user: string, session = "s1") => ["t1", "users", user, "sessions", session, "messages"];
const prefix = (user: string) => ["t1", "users", user, "sessions"];
const QUERIES = ["sister Utrecht observatory", "greyhound walk", "pottery teapot grandmother", "what did I buy in Lisbon"];
const TEXTS = [
  "My sister moved to Utrecht for a job at the observatory.",
  "We adopted a greyhound and walk her every morning.",
  "I started pottery classes and made a teapot for my grandmother.",
  "In Lisbon I bought a blue ceramic tile for the kitchen.",
  "The observatory has a public night every Friday.",
  "Did you know greyhounds sleep most of the day?",
];

async function write(store: PostgresStore, user: string, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    await store.put(ns(user, `s${i % 3}`), `m${i}`, { role: i % 2 ? "assistant" : "user", text: `${TEXTS[i % TEXTS.length]} (${i})` });
  }
}

/** Every query's ranked keys and scores, as a new store of `options` answers them. */
async function rankings(user: string, options: ConstructorParameters<typeof PostgresStore>[1] = {}) {
  const store = open(options);
  const out: [string, number | undefined][][] = [];
  for (const query of QUERIES) out.push((await store.search(prefix(user), { query, limit: 8 })).map((hit) => [hit.key, hit.score]));
  await store.indexSnapshotsSettled();
  return out;
}

const snapshotsOf = async (user: string) =>
  (await sql.query<{ items: number }>(`SELECT items FROM ${SCHEMA}.store_index_snapshots WHERE from_path LIKE $1`, [`t1\u001fusers\u001f${user}\u001f%`])).rows;

it("writes a snapshot after a build; a new store reads it and ranks exactly as a full build does", async () => {
  const writer = open();
  await write(writer, "u1", 0, 40);
  await writer.warmSearch(prefix("u1"));
  await writer.indexSnapshotsSettled();
  expect(await snapshotsOf("u1")).toEqual([{ items: 40 }]);
  // The snapshot is what the new store ranks from: a row removed behind the store's back (no
  // deletion logged) is still ranked by it, and not by a store that builds from the rows.
  await sql.query(`UPDATE ${SCHEMA}.store_items SET tokens = NULL WHERE key = 'm3'`);
  const fromSnapshot = await rankings("u1");
  const built = await rankings("u1", { indexCache: { snapshots: false } });
  expect(fromSnapshot.flat().map(([key]) => key)).toContain("m3");
  expect(built.flat().map(([key]) => key)).not.toContain("m3");
  await sql.query(`UPDATE ${SCHEMA}.store_items SET tokens = (SELECT tokens FROM ${SCHEMA}.store_items WHERE key = 'm9') WHERE key = 'm3'`);
});

it("after writes and deletes following the snapshot, a new store ranks exactly as a full build does", async () => {
  const writer = open();
  await write(writer, "u2", 0, 30);
  await writer.warmSearch(prefix("u2"));
  await writer.indexSnapshotsSettled();
  const other = open({ indexCache: { snapshots: false } }); // another instance, writing without snapshots
  await write(other, "u2", 30, 45);
  const stamped = await snapshotsOf("u2");
  expect(stamped).toEqual([{ items: 30 }]); // the new rows are the change feed's, not the snapshot's
  expect(await rankings("u2")).toEqual(await rankings("u2", { indexCache: { snapshots: false } }));
  await other.delete(ns("u2", "s1"), "m4");
  expect(await snapshotsOf("u2")).toEqual([]); // the deletion took the snapshot holding m4 with it
  const after = await rankings("u2");
  expect(after.flat().map(([key]) => key)).not.toContain("m4");
  expect(after).toEqual(await rankings("u2", { indexCache: { snapshots: false } }));
  expect(await snapshotsOf("u2")).toEqual([{ items: 44 }]); // written again by the store that rebuilt it
});

it("a deletion the snapshot missed (logged since its stamp) is applied when it is read", async () => {
  const writer = open();
  await write(writer, "u3", 0, 20);
  await writer.warmSearch(prefix("u3"));
  await writer.indexSnapshotsSettled();
  // A deleter that ran while the snapshot was being written: its log row is there, the snapshot too.
  const { rows } = await sql.query<{ id: string }>(`SELECT id FROM ${SCHEMA}.store_items WHERE key = 'm1' AND ns_path LIKE 't1%u3%'`);
  await sql.query(`WITH d AS (DELETE FROM ${SCHEMA}.store_items WHERE id = $1 RETURNING id) INSERT INTO ${SCHEMA}.store_deletions (item_id) SELECT id FROM d`, [rows[0]?.id]);
  expect(await snapshotsOf("u3")).toEqual([{ items: 20 }]);
  const read = await rankings("u3");
  expect(read.flat().map(([key]) => key)).not.toContain("m1");
  expect(read).toEqual(await rankings("u3", { indexCache: { snapshots: false } }));
  expect(await snapshotsOf("u3")).toEqual([{ items: 19 }]); // replaced: the deleted message is gone from the stored bytes too
});

it("a first search read from a snapshot reads, in the same statement, what changed for the users the store has cached", async () => {
  const writer = open();
  await write(writer, "u7", 0, 20);
  await writer.warmSearch(prefix("u7"));
  await writer.indexSnapshotsSettled();
  await write(writer, "u8", 0, 12);
  const reader = open();
  const keysOf = async (user: string, query: string) => (await reader.search(prefix(user), { query, limit: 12 })).map((hit) => hit.key);
  expect(await keysOf("u8", "Lisbon ceramic tile")).toContain("m3"); // u8 now cached by the reader
  await writer.put(ns("u8", "s0"), "m3", { role: "user", text: "In Porto I bought a green mug." });
  await writer.delete(ns("u8", "s0"), "m9");
  await writer.put(ns("u8", "s2"), "m20", { role: "user", text: "Another ceramic tile from Lisbon arrived." });
  const original = pg.Client.prototype.query;
  const statements: string[] = [];
  const spy = vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    const [first] = args as [string | { text?: string }];
    statements.push(typeof first === "string" ? first : (first.text ?? ""));
    return Reflect.apply(original, this, args) as never;
  });
  try {
    expect(await keysOf("u7", "greyhound walk")).not.toEqual([]); // u7 read from its snapshot
  } finally {
    spy.mockRestore();
  }
  const feeds = statements.filter((text) => text.includes("pg_current_snapshot"));
  expect(feeds).toHaveLength(1);
  expect(feeds[0]).toContain("store_index_snapshots");
  // The feed read beside the snapshot was applied to u8's cached index.
  expect(await keysOf("u8", "Lisbon ceramic tile")).toContain("m20");
  expect(await keysOf("u8", "Lisbon ceramic tile")).not.toContain("m3");
  expect(await keysOf("u8", "Porto green mug")).toEqual(["m3"]);
  expect(await keysOf("u8", "greyhounds sleep most of the day")).not.toContain("m9");
});

it("reading a snapshot visits only the rows changed since its stamp, not every row of the user", async () => {
  const writer = open();
  await write(writer, "u10", 0, 40);
  await writer.warmSearch(prefix("u10"));
  await writer.indexSnapshotsSettled();
  await write(open({ indexCache: { snapshots: false } }), "u10", 40, 43);
  const original = pg.Client.prototype.query;
  const copies: string[] = [];
  const spy = vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (this: pg.Client, ...args: unknown[]) {
    const text = (args[0] as { text?: string }).text ?? "";
    if (text.startsWith("COPY") && text.includes("store_index_snapshots")) copies.push(text);
    return Reflect.apply(original, this, args) as never;
  });
  try {
    await open().search(prefix("u10"), { query: "greyhound walk", limit: 4 });
  } finally {
    spy.mockRestore();
  }
  expect(copies).toHaveLength(1);
  const select = (copies[0] as string).slice("COPY (".length, (copies[0] as string).lastIndexOf(") TO STDOUT"));
  // Seq scans off, so the plan cannot hide the difference on a table this small.
  await sql.query("BEGIN; SET LOCAL enable_seqscan = off");
  const plan = (await sql.query<{ "QUERY PLAN": unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${select}`)).rows[0]?.["QUERY PLAN"];
  await sql.query("COMMIT");
  type Node = { "Relation Name"?: string; "Actual Rows"?: number; "Rows Removed by Filter"?: number; "Rows Removed by Join Filter"?: number; Plans?: Node[] };
  const nodes: Node[] = [];
  const walk = (node: Node) => (nodes.push(node), node.Plans?.forEach(walk));
  walk((plan as { Plan: Node }[])[0]?.Plan as Node);
  const items = nodes.filter((node) => node["Relation Name"] === "store_items");
  // The user's three rows written since the stamp, found by the index; none of the 40 before read and dropped.
  expect(items.reduce((sum, node) => sum + (node["Actual Rows"] ?? 0), 0)).toBe(3);
  expect(nodes.reduce((sum, node) => sum + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Join Filter"] ?? 0), 0)).toBe(0);
});

it("rewriting a message, deleting its session or forgetting the user deletes the snapshots holding it", async () => {
  const writer = open();
  for (const user of ["u4", "u5", "u6"]) {
    await write(writer, user, 0, 12);
    await writer.warmSearch(prefix(user));
  }
  await writer.indexSnapshotsSettled();
  await writer.put(ns("u4", "s0"), "m0", { role: "user", text: "Redacted." });
  expect(await snapshotsOf("u4")).toEqual([]);
  await writer.deleteNamespacePrefix(["t1", "users", "u5", "sessions", "s2"]);
  expect(await snapshotsOf("u5")).toEqual([]);
  await writer.deleteNamespacePrefix(["t1", "users", "u6"]);
  expect(await snapshotsOf("u6")).toEqual([]);
  const { rows } = await sql.query(`SELECT encode(data, 'escape') AS data FROM ${SCHEMA}.store_index_snapshots`);
  expect(JSON.stringify(rows)).not.toMatch(/u6/);
});

it("rebuilds around an unreadable snapshot, ranks as a full build, and replaces it", async () => {
  const writer = open();
  await write(writer, "u7", 0, 15);
  await writer.warmSearch(prefix("u7"));
  await writer.indexSnapshotsSettled();
  await sql.query(`UPDATE ${SCHEMA}.store_index_snapshots SET data = '\\x00010203' WHERE from_path LIKE 't1%u7%'`);
  expect(await rankings("u7")).toEqual(await rankings("u7", { indexCache: { snapshots: false } }));
  const { rows } = await sql.query<{ n: number }>(`SELECT length(data) AS n FROM ${SCHEMA}.store_index_snapshots WHERE from_path LIKE 't1%u7%'`);
  expect(rows[0]?.n).toBeGreaterThan(100);
});

it("pruning the deletion log deletes the snapshots stamped before what it prunes", async () => {
  const writer = open();
  await write(writer, "u8", 0, 10);
  await writer.warmSearch(prefix("u8"));
  await writer.indexSnapshotsSettled();
  await write(writer, "u9", 0, 2);
  await writer.delete(ns("u9", "s0"), "m0"); // logged after u8's stamp
  await sql.query(`UPDATE ${SCHEMA}.store_deletions SET at = now() - interval '2 days'`);
  expect(await snapshotsOf("u8")).toHaveLength(1);
  await writer.removeOrphanedIndexRows();
  expect(await snapshotsOf("u8")).toEqual([]);
});

it("the service's store warm-up reads a user's index as a first recall does, for a user nothing is stored under, and writes nothing", async () => {
  const writer = open();
  await write(writer, "u10", 0, 6);
  const counts = async () => (await sql.query(`SELECT (SELECT count(*) FROM ${SCHEMA}.store_items) AS items, (SELECT count(*) FROM ${SCHEMA}.store_index_snapshots) AS snapshots, (SELECT count(*) FROM ${SCHEMA}.store_deletions) AS deletions`)).rows[0];
  const before = await counts();
  const store = open();
  const reads: string[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const text = args[0] as { text?: string } | string;
    reads.push(typeof text === "string" ? text : (text.text ?? ""));
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    expect(await warmStoreReads(store, () => true)).toBeGreaterThanOrEqual(0);
  } finally {
    pg.Client.prototype.query = query;
  }
  await store.indexSnapshotsSettled();
  // The snapshot's statement (a COPY, with the change feed) and the query that builds an index from the user's rows.
  expect(reads.some((text) => text.startsWith("COPY (") && text.includes("store_index_snapshots"))).toBe(true);
  expect(reads.some((text) => text.includes("store_items") && text.includes("tokens IS NOT NULL"))).toBe(true);
  expect(WARM_UP_USER.tenantId.trim()).not.toBe(WARM_UP_USER.tenantId);
  expect(await counts()).toEqual(before);
  // Its user's rankings are untouched: the warmed store answers u10 as a store that builds from every row.
  expect((await store.search(prefix("u10"), { query: QUERIES[0] as string, limit: 8 })).map((hit) => hit.key)).toEqual(
    (await open({ indexCache: { snapshots: false } }).search(prefix("u10"), { query: QUERIES[0] as string, limit: 8 })).map((hit) => hit.key),
  );
});
