import Database from "better-sqlite3";
import { SqliteStore } from "../../../src/storage/sqlite/store.js";
import { pathOf } from "../../../src/storage/shared/namespace.js";
import { describeStoreTtl } from "../store-ttl-cases.js";

describeStoreTtl(
  "sqlite",
  async (ttl) => {
    const db = new Database(":memory:");
    const store = new SqliteStore(db, { ttl });
    store.setup();
    return { store, storedRows: async () => (db.prepare("SELECT count(*) AS n FROM store_items").get() as { n: number }).n };
  },
  { textSearch: true },
);

describe("sqlite store TTL on a database written before it", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("adds the TTL columns; the items already there never expire, new puts take the store's default", async () => {
    const db = new Database(":memory:");
    // store_items as the store made it before TTL.
    db.exec(`CREATE TABLE store_items (id INTEGER PRIMARY KEY AUTOINCREMENT, ns_path TEXT NOT NULL, namespace TEXT NOT NULL, key TEXT NOT NULL,
      value TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL, seq INTEGER NOT NULL, label TEXT, speaker TEXT,
      asks INTEGER NOT NULL DEFAULT 0, UNIQUE (ns_path, key))`);
    const ns = ["t1", "users", "u1", "facts"];
    db.prepare("INSERT INTO store_items (ns_path, namespace, key, value, created_at, updated_at, seq) VALUES (?, ?, 'old', ?, ?, ?, 1)").run(
      pathOf(ns),
      JSON.stringify(ns),
      JSON.stringify({ text: "kept" }),
      new Date().toISOString(),
      new Date().toISOString(),
    );
    vi.useFakeTimers({ toFake: ["Date"] });
    const store = new SqliteStore(db, { ttl: { defaultTtl: 1 } });
    store.setup();
    const columns = db.prepare("SELECT name FROM pragma_table_info('store_items')").all() as { name: string }[];
    expect(columns.map((c) => c.name)).toEqual(expect.arrayContaining(["ttl_minutes", "expires_at"]));
    const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'store_items'").all() as { name: string }[];
    expect(indexes.map((i) => i.name)).toContain("store_items_expiry");
    await store.put(ns, "new", { text: "goes" });
    vi.setSystemTime(Date.now() + 5 * 60_000);
    expect((await store.search(ns)).map((i) => i.key)).toEqual(["old"]);
    store.close();
  });
});
