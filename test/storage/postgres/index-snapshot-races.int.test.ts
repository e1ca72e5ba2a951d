import pg from "pg";
import { withLogger, type Logger } from "../../../src/logger.js";
import { buildRecallIndex } from "../../../src/memory/ranking/index-source.js";
import { decodeIndexState, encodeIndexState } from "../../../src/memory/ranking/index-snapshot.js";
import { DEFAULT_INDEX_CACHE_LIMITS, PostgresIndexCache } from "../../../src/storage/postgres/index-cache.js";
import { writeIndexSnapshot } from "../../../src/storage/postgres/index-snapshots.js";
import { deleteItem, writeItems } from "../../../src/storage/postgres/items.js";
import { schemaIdentifier } from "../../../src/storage/postgres/sql.js";
import { PostgresStore } from "../../../src/storage/postgres/store.js";
import { prefixRange } from "../../../src/storage/shared/namespace.js";
import { preparePuts } from "../../../src/storage/shared/store-common.js";
import { createTempDatabase } from "../../support/postgres.js";

/**
 * A snapshot write and a deletion (or rewrite) of an item it holds, on two connections at the same
 * moment: the deleter's statement does not see a snapshot row committed after it began, and the
 * writer's read-back does not see a deletion committed after it. Whatever the interleaving, once
 * both are done no stored snapshot holds the item's words. Each case holds the deleter's
 * transaction open on its own connection, lets the store write the snapshot from its cache, and
 * lets the deleter commit only once the write has finished (the code before the fix) or is
 * waiting for open transactions (the fix), so the interleaving is the same on every run.
 */
let database: Awaited<ReturnType<typeof createTempDatabase>>;
let sql: pg.Client;
const clients: pg.Client[] = [];
const stores: PostgresStore[] = [];
const SCHEMA = "snapshot_race_test";
const SECRET = "My locker code is hidden in the zanzibar notebook.";

beforeAll(async () => {
  database = await createTempDatabase();
  sql = await connect();
}, 60_000);

afterAll(async () => {
  for (const store of stores) await store.close();
  for (const client of clients) await client.end();
  await database.drop();
}, 60_000);

async function connect(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  clients.push(client);
  return client;
}

function open(): PostgresStore {
  const store = PostgresStore.fromConnString(database.url, { schema: SCHEMA });
  stores.push(store);
  return store;
}

const ns = (user: string) => ["t1", "users", user, "sessions", "s1", "messages"];
const prefix = (user: string) => ["t1", "users", user, "sessions"];
const userRows = `from_path LIKE $1`;
const userPattern = (user: string) => `t1\u001fusers\u001f${user}\u001f%`;

async function until(condition: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** How many stored snapshots of `user` hold the secret's words (decoded). */
async function snapshotsWithSecret(user: string): Promise<number> {
  const { rows } = await sql.query<{ data: Buffer }>(`SELECT data FROM ${SCHEMA}.store_index_snapshots WHERE ${userRows} AND length(data) > 0`, [userPattern(user)]);
  return rows.filter((row) => decodeIndexState(row.data).terms.find("zanzibar") >= 0).length;
}

/** The server's clock, as text (to the microsecond, as `query_start`). */
const serverNow = async () => (await sql.query<{ now: string }>("SELECT clock_timestamp()::text AS now")).rows[0]?.now as string;

/**
 * Resolves once `finished()`, or once connections have looked for open transactions twice after
 * `since` (a snapshot write waiting to store its bytes, and still waiting after its first look).
 */
async function finishedOrWaiting(since: string, finished: () => boolean): Promise<void> {
  const looks = new Set<string>();
  await until(async () => {
    if (finished()) return true;
    const { rows } = await sql.query<{ look: string }>(
      `SELECT pid || ' ' || query_start::text AS look FROM pg_stat_activity
       WHERE pid <> pg_backend_pid() AND query LIKE '/* recall snapshot: waiting for open transactions */%' AND query_start > $1::timestamptz`,
      [since],
    );
    for (const row of rows) looks.add(row.look);
    return looks.size >= 2;
  });
}

interface Race {
  /** Runs on the deleter's connection before the store builds and writes the snapshot; may leave a statement running. */
  before: (deleter: pg.Client, blocker: pg.Client) => Promise<{ running?: Promise<unknown> } | void>;
  /** Runs once the write has finished or waits; ends with the change committed. */
  after: (deleter: pg.Client, blocker: pg.Client, running: Promise<unknown> | undefined, settle: () => Promise<void>) => Promise<void>;
}

const remove = (client: pg.Client, user: string) => deleteItem(client, SCHEMA, { namespace: ns(user), key: "secret", value: null });
const rewrite = async (client: pg.Client, user: string, text: string) =>
  writeItems(client, SCHEMA, false, [...(await preparePuts([{ namespace: ns(user), key: "secret", value: { role: "user", text } }], {})).values()]);

const RACES: { name: string; race: (user: string) => Race }[] = [
  {
    name: "a deletion whose statement ran before the snapshot's row existed, committed after",
    race: (user) => ({
      before: async (deleter) => {
        await deleter.query("BEGIN");
        await remove(deleter, user);
      },
      after: async (deleter) => void (await deleter.query("COMMIT")),
    }),
  },
  {
    name: "a rewrite (redaction) likewise",
    race: (user) => ({
      before: async (deleter) => {
        await deleter.query("BEGIN");
        await rewrite(deleter, user, "Redacted.");
      },
      after: async (deleter) => void (await deleter.query("COMMIT")),
    }),
  },
  {
    name: "a repeatable read transaction whose snapshot predates the row, deleting while the writer waits",
    race: (user) => ({
      before: async (deleter) => {
        await deleter.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
        await deleter.query("SELECT 1");
      },
      after: async (deleter) => {
        await remove(deleter, user);
        await deleter.query("COMMIT");
      },
    }),
  },
  {
    // Its statement began before the row existed and ends after it was stored, still without seeing it.
    name: "a deletion queued behind another transaction's row lock until after the row is stored",
    race: (user) => ({
      before: async (deleter, blocker) => {
        await blocker.query("BEGIN");
        await blocker.query(`SELECT 1 FROM ${SCHEMA}.store_items WHERE ns_path LIKE $1 AND key = 'secret' FOR UPDATE`, [`%${user}%`]);
        const pid = (await deleter.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid;
        await deleter.query("BEGIN");
        const running = remove(deleter, user);
        await until(async () => (await sql.query("SELECT 1 FROM pg_locks WHERE pid = $1 AND NOT granted", [pid])).rows.length > 0);
        return { running };
      },
      after: async (deleter, blocker, running, settle) => {
        await blocker.query("COMMIT");
        await running;
        await settle(); // the write has finished (before the fix) or still waits, for the deleter now
        await deleter.query("COMMIT");
      },
    }),
  },
];

it.each(RACES.map(({ name, race }, i) => ({ name, race, user: `r${i}` })))("$name leaves no snapshot holding the item", async ({ race, user }) => {
  const store = open();
  for (let i = 0; i < 12; i++) await store.put(ns(user), `m${i}`, { role: "user", text: `We walked the greyhound along the canal, day ${i}.` });
  await store.put(ns(user), "secret", { role: "user", text: SECRET });
  const [deleter, blocker] = [await connect(), await connect()];
  const { before, after } = race(user);
  const started = await before(deleter, blocker);
  let done = false;
  const settle = async () => finishedOrWaiting(await serverNow(), () => done);
  const since = await serverNow();
  await store.warmSearch(prefix(user)); // builds from the rows, the secret still among them, and schedules the write
  const settled = store.indexSnapshotsSettled().then(() => (done = true));
  await finishedOrWaiting(since, () => done);
  expect(await snapshotsWithSecret(user)).toBe(0); // while the write waits, its row holds no bytes: a process that dies now leaves none
  await after(deleter, blocker, started?.running, settle);
  await settled;
  expect(await snapshotsWithSecret(user)).toBe(0);
  // A new store's search does not find the secret, and the snapshot it writes does not hold it.
  const fresh = open();
  expect((await fresh.search(prefix(user), { query: "zanzibar locker notebook", limit: 5 })).map((hit) => hit.key)).not.toContain("secret");
  await fresh.indexSnapshotsSettled();
  expect(await snapshotsWithSecret(user)).toBe(0);
  expect((await sql.query(`SELECT 1 FROM ${SCHEMA}.store_index_snapshots WHERE ${userRows} AND length(data) > 0`, [userPattern(user)])).rows).toHaveLength(1);
});

it("waits for transactions that hold an id or a snapshot, not for idle ones; past the bound, withdraws the row and logs it", async () => {
  const user = "w1";
  const store = open();
  for (let i = 0; i < 5; i++) await store.put(ns(user), `m${i}`, { role: "user", text: `Pottery class number ${i} made a teapot.` });
  const { rows } = await sql.query<{ id: string; ns_path: string; tokens: string; label: string | null; speaker: string | null; asks: boolean }>(
    `SELECT id, ns_path, tokens, label, speaker, asks FROM ${SCHEMA}.store_items WHERE ns_path LIKE $1 ORDER BY id`,
    [userPattern(user)],
  );
  const state = buildRecallIndex(rows, (row) => ({ id: row.id, group: row.ns_path, order: Number(row.id) })).snapshotState();
  const bytes = encodeIndexState(state);
  const range = prefixRange(prefix(user));
  const stampNow = async () => (await sql.query<{ xmin: string }>("SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin")).rows[0]?.xmin as string;
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  const other = await connect();
  const warnings: string[] = [];
  const logger: Logger = { debug: () => undefined, info: () => undefined, error: () => undefined, warn: (_fields, event) => void warnings.push(event) };
  try {
    await other.query("BEGIN");
    await other.query("SELECT 1"); // idle in a read committed transaction: no id, no snapshot between statements
    expect(await writeIndexSnapshot(pool, SCHEMA, range, await stampNow(), state, bytes, 60_000)).toBe("written");
    await other.query("SELECT pg_current_xact_id()"); // now it holds an id: it may have deleted what the bytes hold
    const stamp = await stampNow();
    const outcome = await withLogger(logger, () => writeIndexSnapshot(pool, SCHEMA, range, stamp, state, bytes, 100));
    expect(outcome).toBe("gave up");
    expect(warnings).toEqual(["store.recall_snapshot_withdrawn"]);
    expect((await sql.query(`SELECT 1 FROM ${SCHEMA}.store_index_snapshots WHERE ${userRows}`, [userPattern(user)])).rows).toEqual([]);
  } finally {
    await other.query("ROLLBACK");
    await pool.end();
  }
});

it("writes a snapshot it had to give up on again at the index's next use, once the transactions it waited for have ended", async () => {
  const user = "g1";
  const store = open();
  for (let i = 0; i < 5; i++) await store.put(ns(user), `m${i}`, { role: "user", text: `Kayak trip number ${i} on the river.` });
  const pool = new pg.Pool({ connectionString: database.url, max: 3 });
  const cache = new PostgresIndexCache(schemaIdentifier(SCHEMA), DEFAULT_INDEX_CACHE_LIMITS, pool, 100);
  const other = await connect();
  const { from, to } = prefixRange(prefix(user));
  const stored = async () => (await sql.query(`SELECT 1 FROM ${SCHEMA}.store_index_snapshots WHERE ${userRows} AND length(data) > 0`, [userPattern(user)])).rows.length;
  const db = await pool.connect();
  try {
    await other.query("BEGIN");
    await other.query("SELECT pg_current_xact_id()"); // holds an id until it ends: the write waits for it, then gives up
    expect(await cache.indexOf(db, from, to)).toBeDefined();
    await cache.settled();
    expect(await stored()).toBe(0);
    await other.query("ROLLBACK");
    await cache.indexOf(db, from, to); // the entry is cached: nothing changed since, but none is stored
    await cache.settled();
    expect(await stored()).toBe(1);
  } finally {
    db.release();
    await pool.end();
  }
});
