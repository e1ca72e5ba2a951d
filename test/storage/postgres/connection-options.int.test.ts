import pg from "pg";
import { openPostgres } from "../../../src/storage/postgres/open.js";
import { PostgresStore } from "../../../src/storage/postgres/store.js";
import { createTempDatabase, POSTGRES_ADMIN_URL } from "../../support/postgres.js";

/**
 * Every connection the stores open runs with JIT compilation off (`CONNECTION_OPTIONS`): the
 * planner prices the store's short queries past `jit_above_cost`, and compiling each cost far more
 * than running it. Read from the server's own view of each open connection.
 */
let database: Awaited<ReturnType<typeof createTempDatabase>>;

beforeAll(async () => {
  database = await createTempDatabase();
}, 60_000);

afterAll(async () => {
  await database.drop();
}, 60_000);

/** `SHOW jit` on a connection of `pool`. */
async function jitOf(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ jit: string }>("SHOW jit");
  return rows[0]?.jit ?? "";
}

it("opens the persistence's and a store's own pools with jit off, where the server's default is on", async () => {
  const admin = new pg.Pool({ connectionString: POSTGRES_ADMIN_URL, max: 1 });
  const persistence = await openPostgres({ url: database.url });
  const store = PostgresStore.fromConnString(database.url, { schema: "jit_test" });
  try {
    expect(await jitOf(admin)).toBe("on");
    expect(await jitOf((persistence.store as unknown as { pool: pg.Pool }).pool)).toBe("off");
    expect(await jitOf((store as unknown as { pool: pg.Pool }).pool)).toBe("off");
  } finally {
    await Promise.all([persistence.close(), store.close(), admin.end()]);
  }
});
