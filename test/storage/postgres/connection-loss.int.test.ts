import pg from "pg";
import { PostgresStore } from "../../../src/storage/postgres/store.js";
import { createTempDatabase, POSTGRES_ADMIN_URL } from "../../support/postgres.js";

/**
 * A store on its own pool (`PostgresStore.fromConnString`, the library's way in) lives through the
 * server dropping its idle connections (a restart, a failover, an administrator): node-postgres
 * throws such an error out of the process unless the pool has a listener.
 */
let database: Awaited<ReturnType<typeof createTempDatabase>>;

beforeAll(async () => {
  database = await createTempDatabase();
}, 60_000);

afterAll(async () => {
  await database.drop();
}, 60_000);

it("answers after the server terminated its idle connections, without an uncaught error", async () => {
  const store = PostgresStore.fromConnString(database.url, { schema: "loss_test" });
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  process.on("uncaughtException", onUncaught);
  try {
    await store.put(["t1", "users", "u1"], "k1", { text: "before" });
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    const name = new URL(database.url).pathname.slice(1);
    const { rows } = await admin.query<{ terminated: boolean }>(
      "SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
      [name],
    );
    await admin.end();
    expect(rows.length).toBeGreaterThan(0);
    // Let the terminated connections' FATAL messages arrive at the idle clients.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(uncaught).toEqual([]);
    expect((await store.get(["t1", "users", "u1"], "k1"))?.value).toEqual({ text: "before" });
  } finally {
    process.off("uncaughtException", onUncaught);
    await store.close();
  }
});
