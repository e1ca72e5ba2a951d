import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteStore } from "../../../src/storage/sqlite/store.js";
import type { RankedItem } from "../../../src/memory/ports/store.js";
import { HashedNgramEmbeddings } from "../../../src/memory/ranking/index.js";
import { describeStoreContract } from "../store-contract.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "sqlite-store-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let files = 0;
const freshPath = () => join(dir, `nested-${++files}`, "memory.db");

describeStoreContract("SqliteStore", async () => SqliteStore.open(freshPath()), { textSearch: true });
describeStoreContract(
  "SqliteStore with embeddings",
  async () => SqliteStore.open(freshPath(), { embeddings: new HashedNgramEmbeddings() }),
  { textSearch: true, vectorSearch: true },
);

describe("SqliteStore", () => {
  const ns = ["t1", "users", "u1", "messages"];
  const open: SqliteStore[] = [];
  const make = (options: Parameters<typeof SqliteStore.open>[1] = {}, path = freshPath()) => {
    const store = SqliteStore.open(path, options);
    open.push(store);
    return store;
  };
  afterEach(() => {
    for (const store of open.splice(0)) store.close();
  });
  const search = (store: SqliteStore, query: string, limit = 10) =>
    store.search(ns, { query, limit }) as Promise<RankedItem[]>;

  it("keeps data across closing and reopening the file, in WAL mode", async () => {
    const path = freshPath();
    const first = SqliteStore.open(path);
    await first.put(ns, "m1", { text: "remember the blue bicycle" });
    first.close();
    const second = make({}, path);
    expect((await second.get(ns, "m1"))?.value).toEqual({ text: "remember the blue bicycle" });
    expect((await search(second, "bicycle")).map((i) => i.key)).toEqual(["m1"]);
    const db = new Database(path, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });

  it("shares a database it did not open and leaves it open on close", async () => {
    const db = new Database(freshPath().replace(/nested-\d+[/\\]/, ""));
    db.exec("CREATE TABLE IF NOT EXISTS checkpoints (id TEXT)");
    const store = new SqliteStore(db);
    store.setup();
    store.setup();
    await store.put(ns, "m1", { text: "x" });
    store.close();
    expect(db.open).toBe(true);
    await expect(store.get(ns, "m1")).rejects.toThrow(expect.objectContaining({ code: "STORE_CLOSED" }));
    db.close();
  });

  it("finds a Thai item by a Thai query", async () => {
    const store = make();
    await store.put(ns, "th", { text: "ราคาสินค้านี้เท่าไหร่ครับ" });
    await store.put(ns, "en", { text: "what is the price of this product" });
    const hits = await search(store, "สินค้า ราคา");
    expect(hits.map((h) => h.key)).toEqual(["th"]);
    expect(hits[0]?.ranking).toEqual({ lexical: 1, fused: 1 });
  });

  it("matches inflected English forms through the stemmer", async () => {
    const store = make();
    await store.put(ns, "p", { text: "The prices changed yesterday" });
    expect((await search(store, "pricing")).map((h) => h.key)).toEqual(["p"]);
  });

  it("treats FTS5 syntax in queries as plain words", async () => {
    const store = make();
    await store.put(ns, "q", { text: 'quote " and NEAR( star * column:x' });
    await expect(search(store, 'NEAR( " * column:x OR AND')).resolves.toBeInstanceOf(Array);
  });

  it("returns nothing for a query with no lexical match and no embeddings", async () => {
    const store = make();
    await store.put(ns, "m", { text: "shipment tracking number" });
    expect(await search(store, "shippment trackin")).toEqual([]);
    expect(await search(store, "the and")).toEqual([]);
  });

  it("finds by vector similarity what has no lexical match, with provenance", async () => {
    const store = make({ embeddings: new HashedNgramEmbeddings() });
    await store.put(ns, "ship", { text: "shipment tracking number" });
    await store.put(ns, "colour", { text: "what is your favourite colour" });
    const hits = await search(store, "shippment trackin numbr");
    expect(hits.map((h) => h.key)).toEqual(["ship"]);
    expect(hits[0]?.ranking?.lexical).toBeUndefined();
    expect(hits[0]?.ranking?.vector).toBeGreaterThanOrEqual(0.45);
    expect(hits[0]?.score).toBe(1);
  });

  it("compares vectors of the recent items and of the best lexical candidates only", async () => {
    const store = make({ embeddings: new HashedNgramEmbeddings(), recentCandidates: 1, vectorCandidates: 0 });
    await store.put(ns, "old", { text: "shipment tracking number" });
    await store.put(ns, "new", { text: "what is your favourite colour" });
    // "old" has no lexical match and is not among the one most recent item: no vector is compared.
    expect(await search(store, "shippment trackin numbr")).toEqual([]);
    const wider = make({ embeddings: new HashedNgramEmbeddings(), recentCandidates: 2 }, freshPath());
    await wider.put(ns, "old", { text: "shipment tracking number" });
    await wider.put(ns, "new", { text: "what is your favourite colour" });
    expect((await search(wider, "shippment trackin numbr")).map((h) => h.key)).toEqual(["old"]);
    expect(() => make({ vectorCandidates: -1 })).toThrow(expect.objectContaining({ code: "INVALID_INPUT" }));
    expect(() => make({ recentCandidates: 1.5 })).toThrow(expect.objectContaining({ code: "INVALID_INPUT" }));
  });

  it("fuses lexical and vector hits, an item both find ranking first", async () => {
    const store = make({ embeddings: new HashedNgramEmbeddings() });
    await store.put(ns, "both", { text: "I want a refund for my order" });
    await store.put(ns, "lex", { text: `refund ${"unrelated padding text about gardens ".repeat(8)}` });
    await store.put(ns, "none", { text: "sunny weather at the beach" });
    const hits = await search(store, "refund my order");
    expect(hits[0]?.key).toBe("both");
    expect(hits[0]?.ranking).toMatchObject({ lexical: expect.any(Number), vector: expect.any(Number), fused: 1 });
    expect(hits.map((h) => h.key)).not.toContain("none");
  });

  it("stores vectors compactly and still ranks by the Float32 vectors of a file written before", async () => {
    const path = freshPath();
    const embeddings = new HashedNgramEmbeddings();
    const store = make({ embeddings }, path);
    await store.put(ns, "ship", { text: "shipment tracking number" });
    await store.put(ns, "colour", { text: "what is your favourite colour" });
    const db = new Database(path);
    const rows = db.prepare("SELECT dims, length(vector) AS bytes FROM store_vectors").all() as { dims: number; bytes: number }[];
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.bytes).toBe(row.dims + 5);
    const compact = (await search(store, "shippment trackin numbr"))[0]?.ranking?.vector;
    // As the store wrote vectors before: one platform-order Float32 per dimension.
    const [vector] = await embeddings.embedDocuments([`shipment tracking number`]);
    db.prepare("UPDATE store_vectors SET vector = ? WHERE item_id = (SELECT id FROM store_items WHERE key = 'ship')").run(
      Buffer.from(new Float32Array(vector ?? []).buffer),
    );
    db.close();
    store.close();
    const reopened = make({ embeddings }, path);
    const hits = await search(reopened, "shippment trackin numbr");
    expect(hits.map((h) => h.key)).toEqual(["ship"]);
    expect(hits[0]?.ranking?.vector).toBeCloseTo(compact ?? 0, 2);
  });

  it("applies the minimum similarity to vector scores only", async () => {
    const strict = make({ embeddings: new HashedNgramEmbeddings(), minVectorSimilarity: 0.99 });
    await strict.put(ns, "ship", { text: "shipment tracking number" });
    await strict.put(ns, "lex", { text: "refund for order 42" });
    expect(await search(strict, "shippment trackin numbr")).toEqual([]);
    const lexicalOnly = await search(strict, "refund please");
    expect(lexicalOnly.map((h) => h.key)).toEqual(["lex"]);
    expect(lexicalOnly[0]?.ranking?.vector).toBeUndefined();
  });

  it("indexes the configured fields, and nothing when index is false", async () => {
    const store = make({ indexFields: ["title", "parts[*].body"] });
    await store.put(ns, "a", { title: "garden hose", text: "ignored words", parts: [{ body: "watering can" }] });
    await store.put(ns, "b", { text: "garden party" }, false);
    expect((await search(store, "watering")).map((h) => h.key)).toEqual(["a"]);
    expect(await search(store, "ignored")).toEqual([]);
    expect((await search(store, "garden")).map((h) => h.key)).toEqual(["a"]);
  });

  it("indexes every string of a value without a text field", async () => {
    const store = make();
    await store.put(ns, "f", { subject: "favourite drink", object: "green tea", confidence: 0.9 });
    expect((await search(store, "tea")).map((h) => h.key)).toEqual(["f"]);
  });

  it("orders items without a query by last update, newest first", async () => {
    const store = make();
    for (const key of ["a", "b", "c"]) await store.put(ns, key, { text: key });
    await store.put(ns, "a", { text: "updated" });
    expect((await store.search(ns)).map((i) => i.key)).toEqual(["a", "c", "b"]);
  });

  it("deletes everything under a prefix: items, full-text rows and vectors", async () => {
    const path = freshPath();
    const store = make({ embeddings: new HashedNgramEmbeddings() }, path);
    await store.put(["t1", "users", "u1", "facts"], "f", { text: "likes tea" });
    await store.put(["t1", "users", "u1", "sessions", "s1", "messages"], "m", { text: "hello tea" });
    await store.put(["t1", "users", "u10", "facts"], "f", { text: "likes tea too" });
    expect(await store.deleteNamespacePrefix(["t1", "users", "u1"])).toBe(2);
    expect(await store.search(["t1"], { query: "tea" })).toHaveLength(1);
    const db = new Database(path, { readonly: true });
    const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    expect([count("store_items"), count("store_fts"), count("store_vectors")]).toEqual([1, 1, 1]);
    db.close();
    await expect(store.deleteNamespacePrefix([])).rejects.toThrow(expect.objectContaining({ code: "NAMESPACE_TENANT_REQUIRED" }));
  });

  it("sees what another connection (another worker) puts, rewrites and deletes", async () => {
    const path = freshPath();
    const [a, b] = [make({}, path), make({}, path)];
    await a.put(ns, "m1", { text: "the invoice for the lighthouse repair" });
    await a.put(ns, "m2", { text: "notes about a lighthouse keeper" });
    const keys = async (query: string) => (await search(a, query)).map((item) => item.key).sort();
    expect(await keys("lighthouse")).toEqual(["m1", "m2"]); // a's cache is built now
    await b.put(ns, "m3", { text: "lighthouse paint order" });
    await b.put(ns, "m1", { text: "the invoice for the harbour crane" });
    expect(await keys("lighthouse")).toEqual(["m2", "m3"]);
    expect(await keys("crane")).toEqual(["m1"]);
    await b.delete(ns, "m2");
    expect(await keys("lighthouse")).toEqual(["m3"]);
    await a.put(ns, "m4", { text: "lighthouse lamp" });
    await b.put(ns, "m5", { text: "lighthouse stairs" });
    expect(await keys("lighthouse")).toEqual(["m3", "m4", "m5"]);
  });

  it("rejects values that are not JSON objects", async () => {
    const store = make();
    await expect(store.batch([{ namespace: ns, key: "k", value: [1] as never }])).rejects.toThrow(
      expect.objectContaining({ code: "INVALID_VALUE" }),
    );
  });
});
