import { randomUUID } from "node:crypto";
import pg from "pg";
import { PostgresStore } from "../../../src/storage/postgres/store.js";
import { HashedNgramEmbeddings } from "../../../src/memory/ranking/index.js";
import { pathOf } from "../../../src/storage/shared/namespace.js";
import { describeStoreTtl } from "../store-ttl-cases.js";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const schema = `mg_store_ttl_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
let pool: pg.Pool;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: DATABASE_URL, max: 8 });
});
afterAll(async () => {
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
});

describeStoreTtl(
  "postgres",
  async (ttl) => {
    const store = new PostgresStore(pool, { schema, embeddings: new HashedNgramEmbeddings(), ttl });
    await store.setup();
    await pool.query(`TRUNCATE ${schema}.store_items CASCADE`);
    const storedRows = async () => Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.store_items`)).rows[0]?.n);
    return { store, storedRows };
  },
  { textSearch: true },
);

describe("postgres store TTL on a database written before it", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("migration 6 adds the TTL columns; the items already there never expire, new puts take the store's default", async () => {
    const s = `${schema}_old`;
    const ns = ["t1", "users", "u1", "facts"];
    // A schema at migration 5, with an item written then.
    const before = new PostgresStore(pool, { schema: s });
    await before.setup();
    await pool.query(`DROP INDEX ${s}.store_items_expiry; ALTER TABLE ${s}.store_items DROP COLUMN ttl_minutes, DROP COLUMN expires_at`);
    await pool.query(`DELETE FROM ${s}.store_migrations WHERE version = 6`);
    await pool.query(
      `INSERT INTO ${s}.store_items (ns_path, namespace, key, value, created_at, updated_at) VALUES ($1, $2, 'old', '{"text":"kept"}', now(), now())`,
      [pathOf(ns), ns],
    );
    try {
      vi.useFakeTimers({ toFake: ["Date"] });
      const store = new PostgresStore(pool, { schema: s, ttl: { defaultTtl: 1 } });
      await store.setup();
      const { rows } = await pool.query<{ version: number }>(`SELECT version FROM ${s}.store_migrations ORDER BY version`);
      expect(rows.map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      await store.put(ns, "new", { text: "goes" });
      vi.setSystemTime(Date.now() + 5 * 60_000);
      expect((await store.search(ns)).map((i) => i.key)).toEqual(["old"]);
      expect(await store.sweepExpiredItems()).toBe(1);
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    }
  });
});
