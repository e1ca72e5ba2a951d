import pg from "pg";
import { openPostgres } from "../../../src/storage/postgres/open.js";
import { poolConfig } from "../../../src/storage/postgres/sql.js";
import { PostgresStore } from "../../../src/storage/postgres/store.js";
import { createTempDatabase, POSTGRES_ADMIN_URL } from "../../support/postgres.js";

/**
 * Every connection the stores open runs with JIT compilation and parallel query off
 * (`CONNECTION_OPTIONS`): the planner prices the store's short queries past `jit_above_cost` and
 * plans the change feed with a parallel worker, and compiling or starting one cost far more than
 * running the query. Read from the server's own view of each open connection.
 */
let database: Awaited<ReturnType<typeof createTempDatabase>>;

beforeAll(async () => {
  database = await createTempDatabase();
}, 60_000);

afterAll(async () => {
  await database.drop();
}, 60_000);

/** `jit` and `max_parallel_workers_per_gather` on a connection of `pool`. */
async function settingsOf(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ jit: string; workers: string }>(
    "SELECT current_setting('jit') AS jit, current_setting('max_parallel_workers_per_gather') AS workers",
  );
  return `jit ${rows[0]?.jit}, workers ${rows[0]?.workers}`;
}

it("opens the persistence's and a store's own pools with jit and parallel workers off, where the server's default is on", async () => {
  const admin = new pg.Pool({ connectionString: POSTGRES_ADMIN_URL, max: 1 });
  const persistence = await openPostgres({ url: database.url });
  const store = PostgresStore.fromConnString(database.url, { schema: "jit_test" });
  try {
    expect(await settingsOf(admin)).toBe("jit on, workers 2");
    expect(await settingsOf((persistence.store as unknown as { pool: pg.Pool }).pool)).toBe("jit off, workers 0");
    expect(await settingsOf((store as unknown as { pool: pg.Pool }).pool)).toBe("jit off, workers 0");
  } finally {
    await Promise.all([persistence.close(), store.close(), admin.end()]);
  }
});

it("keeps one connection of a pool open once it is idle past the idle timeout, closing the others", async () => {
  // The stores' options, with pg's idle timeout (10 s) cut to 10 ms so the test does not wait it out.
  const pool = new pg.Pool({ ...poolConfig(database.url, 3), idleTimeoutMillis: 10 });
  const persistence = await openPostgres({ url: database.url });
  try {
    const removed = new Promise((resolve) => pool.once("remove", resolve));
    await Promise.all([pool.query("SELECT pg_sleep(0.01)"), pool.query("SELECT pg_sleep(0.01)")]);
    expect(pool.totalCount).toBe(2);
    await removed;
    // Past five idle timeouts, the last one is still open (pg's default closes it too).
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect([pool.totalCount, pool.idleCount]).toEqual([1, 1]);
    expect((persistence.store as unknown as { pool: { options: pg.PoolConfig } }).pool.options.min).toBe(1);
  } finally {
    await Promise.all([pool.end(), persistence.close()]);
  }
});
