import { randomUUID } from "node:crypto";
import pg from "pg";
import { PostgresStore } from "../../../src/storage/postgres/store.js";
import type { RankedItem } from "../../../src/memory/ports/store.js";
import { setLogLevel, setLogSink } from "../../../src/logger.js";
import { HashedNgramEmbeddings, tokenize } from "../../../src/memory/ranking/index.js";
import { pathOf } from "../../../src/storage/shared/namespace.js";
import { describeStoreContract } from "../store-contract.js";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const run = randomUUID().replace(/-/g, "").slice(0, 12);
const schemas = { vec: `mg_store_vec_${run}`, lex: `mg_store_lex_${run}`, misc: `mg_store_misc_${run}`, old: `mg_store_old_${run}` };
let pool: pg.Pool;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: DATABASE_URL, max: 8 });
});
afterAll(async () => {
  for (const schema of Object.values(schemas)) await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
});

/** A store on a schema emptied first, so every contract case starts from nothing. */
async function fresh(schema: string, options: ConstructorParameters<typeof PostgresStore>[1] = {}): Promise<PostgresStore> {
  const store = new PostgresStore(pool, { schema, ...options });
  await store.setup();
  await pool.query(`TRUNCATE ${schema}.store_items, ${schema}.store_index_snapshots CASCADE`);
  return store;
}

describeStoreContract("PostgresStore with pgvector", () => fresh(schemas.vec, { embeddings: new HashedNgramEmbeddings() }), {
  textSearch: true,
  vectorSearch: true,
});
describeStoreContract("PostgresStore lexical only", () => fresh(schemas.lex, { embeddings: new HashedNgramEmbeddings(), vectors: "off" }), {
  textSearch: true,
});

describe("PostgresStore", () => {
  const ns = ["t1", "users", "u1", "messages"];
  const search = (store: PostgresStore, query: string, limit = 10) => store.search(ns, { query, limit }) as Promise<RankedItem[]>;
  const count = async (table: string) => Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${schemas.misc}.${table}`)).rows[0]?.n);

  it("sets up idempotently, and concurrently from several stores", async () => {
    const stores = Array.from({ length: 3 }, () => new PostgresStore(pool, { schema: schemas.misc, embeddings: new HashedNgramEmbeddings() }));
    const results = await Promise.all(stores.map((s) => s.setup()));
    expect(results.every((r) => r.vectors)).toBe(true);
    await stores[0]?.setup();
    const { rows } = await pool.query<{ version: number }>(`SELECT version FROM ${schemas.misc}.store_migrations ORDER BY version`);
    expect(rows.map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("finds by vector similarity what has no lexical match, through the HNSW index", async () => {
    const store = await fresh(schemas.misc, { embeddings: new HashedNgramEmbeddings() });
    await store.put(ns, "ship", { text: "shipment tracking number" });
    await store.put(ns, "colour", { text: "what is your favourite colour" });
    const hits = await search(store, "shippment trackin numbr");
    expect(hits.map((h) => h.key)).toEqual(["ship"]);
    expect(hits[0]?.ranking?.lexical).toBeUndefined();
    expect(hits[0]?.ranking?.vector).toBeGreaterThanOrEqual(0.45);
    const { rows } = await pool.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE schemaname = $1", [schemas.misc]);
    expect(rows.map((r) => r.indexname)).toContainEqual(expect.stringMatching(/^store_vectors_hnsw_\d+$/));
  });

  it("stores vectors in half precision, and converts the full-precision rows of a schema written before", async () => {
    // The schema as the store left it before half precision: vector rows and an HNSW index over them.
    const s = schemas.old;
    const embeddings = new HashedNgramEmbeddings();
    const [vector] = await embeddings.embedDocuments(["shipment tracking number"]);
    await pool.query(`CREATE SCHEMA ${s}`);
    await pool.query(`CREATE TABLE ${s}.store_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    await pool.query(`CREATE SEQUENCE ${s}.store_items_seq`);
    await pool.query(`CREATE TABLE ${s}.store_items (id bigserial PRIMARY KEY, ns_path text COLLATE "C" NOT NULL, namespace text[] NOT NULL, key text NOT NULL,
      value jsonb NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, seq bigint NOT NULL DEFAULT nextval('${s}.store_items_seq'),
      terms tsvector, UNIQUE (ns_path, key))`);
    await pool.query(`CREATE TABLE ${s}.store_vectors (item_id bigint PRIMARY KEY REFERENCES ${s}.store_items (id) ON DELETE CASCADE, dims integer NOT NULL, embedding vector NOT NULL)`);
    await pool.query(`CREATE INDEX store_vectors_hnsw_${vector?.length} ON ${s}.store_vectors USING hnsw ((embedding::vector(${vector?.length})) vector_cosine_ops) WHERE dims = ${vector?.length}`);
    await pool.query(`INSERT INTO ${s}.store_migrations (version) VALUES (1), (2)`);
    // A transcript row as the code before migration 4 wrote it: its traits only inside the JSON.
    const old = { role: "user", speaker: "Ann", text: "Which harbour did the ferry leave from? " };
    await pool.query(
      `INSERT INTO ${s}.store_items (ns_path, namespace, key, value, created_at, updated_at, terms) VALUES ($1, $2, 'old', $3, now(), now(), to_tsvector('simple', 'ann which harbour ferry leave'))`,
      [pathOf(ns), ns, old],
    );
    const writer = new PostgresStore(pool, { schema: s, embeddings, vectors: "off" });
    await writer.put(ns, "ship", { text: "shipment tracking number" }); // the item; its vector as the old code wrote it:
    await pool.query(`INSERT INTO ${s}.store_vectors (item_id, dims, embedding) SELECT id, $1, $2::vector FROM ${s}.store_items WHERE key = 'ship'`, [
      vector?.length,
      `[${(vector ?? []).join(",")}]`,
    ]);
    const store = new PostgresStore(pool, { schema: s, embeddings });
    expect((await store.setup()).vectors).toBe(true);
    const type = await pool.query<{ t: string }>(
      "SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'embedding'",
      [`${s}.store_vectors`],
    );
    expect(type.rows[0]?.t).toBe("halfvec");
    const filled = await pool.query(`SELECT tokens, label, speaker, asks FROM ${s}.store_items WHERE key = 'old'`);
    expect(filled.rows[0]).toEqual({ tokens: tokenize(`Ann: ${old.text}`).join(" "), label: "user", speaker: "Ann", asks: true });
    const hits = await search(store, "shippment trackin numbr");
    expect(hits.map((h) => h.key)).toEqual(["ship"]);
    expect(hits[0]?.ranking?.vector).toBeGreaterThanOrEqual(0.45);
    await store.put(ns, "colour", { text: "what is your favourite colour" });
    const sizes = await pool.query<{ bytes: number; dims: number }>(`SELECT pg_column_size(embedding) AS bytes, dims FROM ${s}.store_vectors`);
    for (const row of sizes.rows) expect(row.bytes).toBeLessThanOrEqual(2 * row.dims + 8);
    const indexes = await pool.query<{ def: string }>("SELECT indexdef AS def FROM pg_indexes WHERE schemaname = $1 AND tablename = 'store_vectors' AND indexname LIKE 'store_vectors_hnsw_%'", [s]);
    expect(indexes.rows.map((r) => r.def)).toEqual([expect.stringContaining("halfvec_cosine_ops")]);
  });

  it("fuses lexical and vector hits and applies the minimum similarity to vectors only", async () => {
    const store = await fresh(schemas.misc, { embeddings: new HashedNgramEmbeddings() });
    await store.put(ns, "both", { text: "I want a refund for my order" });
    await store.put(ns, "lex", { text: `refund ${"unrelated padding text about gardens ".repeat(8)}` });
    await store.put(ns, "none", { text: "sunny weather at the beach" });
    const hits = await search(store, "refund my order");
    expect(hits[0]?.key).toBe("both");
    expect(hits[0]?.ranking).toMatchObject({ lexical: expect.any(Number), vector: expect.any(Number), fused: 1 });
    expect(hits.map((h) => h.key)).not.toContain("none");
    const strict = new PostgresStore(pool, { schema: schemas.misc, embeddings: new HashedNgramEmbeddings(), minVectorSimilarity: 0.99 });
    const lexicalOnly = await search(strict, "refund please");
    expect(lexicalOnly.map((h) => h.key).sort()).toEqual(["both", "lex"]);
    expect(lexicalOnly.every((h) => h.ranking?.vector === undefined)).toBe(true);
  });

  it("finds Thai by Thai, inflected English through the stemmer, and treats query syntax as words", async () => {
    const store = await fresh(schemas.misc);
    await store.put(ns, "th", { text: "ราคาสินค้านี้เท่าไหร่ครับ" });
    await store.put(ns, "en", { text: "The prices changed yesterday" });
    await store.put(ns, "q", { text: "quote ' and \\ back & pipe | bang ! colon:x" });
    expect((await search(store, "สินค้า ราคา")).map((h) => h.key)).toEqual(["th"]);
    expect((await search(store, "pricing")).map((h) => h.key)).toEqual(["en"]);
    await expect(search(store, "' \\ & | ! : ( ) <-> *")).resolves.toBeInstanceOf(Array);
    expect((await search(store, "colon:x bang!")).map((h) => h.key)).toEqual(["q"]);
  });

  it("deletes everything under a prefix: items, terms and vectors", async () => {
    const store = await fresh(schemas.misc, { embeddings: new HashedNgramEmbeddings() });
    await store.put(["t1", "users", "u1", "facts"], "f", { text: "likes tea" });
    await store.put(["t1", "users", "u1", "sessions", "s1", "messages"], "m", { text: "hello tea" });
    await store.put(["t1", "users", "u10", "facts"], "f", { text: "likes tea too" });
    expect(await store.deleteNamespacePrefix(["t1", "users", "u1"])).toBe(2);
    expect(await store.search(["t1"], { query: "tea" })).toHaveLength(1);
    expect([await count("store_items"), await count("store_vectors")]).toEqual([1, 1]);
    expect(await store.removeOrphanedIndexRows()).toBe(0);
    expect(await store.listTenants()).toEqual(["t1"]);
    await expect(store.deleteNamespacePrefix([])).rejects.toThrow(expect.objectContaining({ code: "NAMESPACE_TENANT_REQUIRED" }));
  });

  it("writes a batch of upserts in one statement: vectors put, replaced and dropped with their items, all or nothing", async () => {
    const store = await fresh(schemas.misc, { embeddings: new HashedNgramEmbeddings() });
    const ns = ["t1", "users", "u2", "sessions", "s1", "messages"];
    const vectorOf = async (key: string) =>
      (await pool.query<{ v: string }>(`SELECT v.embedding::text AS v FROM ${schemas.misc}.store_vectors v JOIN ${schemas.misc}.store_items i ON i.id = v.item_id WHERE i.key = $1`, [key])).rows[0]?.v;
    await store.batch([
      { namespace: ns, key: "a", value: { text: "green tea" } },
      { namespace: ns, key: "b", value: { text: "black coffee" } },
    ]);
    const before = await vectorOf("a");
    expect(before).toBeDefined();
    expect(await vectorOf("b")).toBeDefined();
    await store.batch([
      { namespace: ns, key: "a", value: { text: "oolong tea leaves" } },
      { namespace: ns, key: "b", value: { text: "no longer indexed" }, index: false },
    ]);
    expect(await vectorOf("a")).not.toEqual(before);
    expect(await vectorOf("b")).toBeUndefined();
    // A value the database refuses (a NUL character in jsonb) fails the whole statement: nothing of it is stored.
    await expect(store.batch([{ namespace: ns, key: "c", value: { text: "fine" } }, { namespace: ns, key: "d", value: { text: "bad \u0000" } }])).rejects.toThrow();
    expect(await store.get(ns, "c")).toBeNull();
  });

  it("warns once, at set-up, when embeddings are configured but pgvector is not used", async () => {
    const lines: string[] = [];
    setLogLevel("info");
    setLogSink((line) => lines.push(line));
    try {
      const store = new PostgresStore(pool, { schema: schemas.lex, embeddings: new HashedNgramEmbeddings(), vectors: "off" });
      await store.put(ns, "a", { text: "alpha" });
      await store.search(ns, { query: "alpha" });
      await store.setup();
    } finally {
      setLogSink((line) => process.stdout.write(`${line}\n`));
      setLogLevel("silent");
    }
    expect(lines.filter((l) => l.includes("store.vectors_unavailable"))).toHaveLength(1);
  });

  it("owns the pool it makes from a connection string and refuses use after close", async () => {
    const store = PostgresStore.fromConnString(DATABASE_URL, { schema: schemas.misc, maxConnections: 2 });
    await store.put(ns, "k", { text: "x" });
    await store.close();
    await expect(store.get(ns, "k")).rejects.toThrow(expect.objectContaining({ code: "STORE_CLOSED" }));
  });
});
