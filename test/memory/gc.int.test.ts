import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { createMemoryGraph } from "../../src/app/create-memory-graph.js";
import { setLogLevel } from "../../src/logger.js";
import { PostgresCheckpointer } from "../../src/storage/postgres/checkpointer.js";
import { PostgresStore } from "../../src/storage/postgres/store.js";
import { SqliteCheckpointer } from "../../src/storage/sqlite/checkpointer.js";
import { SqliteStore } from "../../src/storage/sqlite/store.js";
import { collectGarbage, type GcTarget } from "../../src/memory/gc.js";
import { postgresGcTarget } from "../../src/storage/postgres/gc-target.js";
import { sqliteGcTarget } from "../../src/storage/sqlite/gc-target.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { loadTranscript } from "../../src/memory/transcript.js";
import { HashedNgramEmbeddings } from "../../src/memory/ranking/index.js";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const dir = mkdtempSync(join(tmpdir(), "gc-"));
const schema = `mg_gc_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 6 });
const DAY = 86_400_000;

beforeAll(() => setLogLevel("silent"));
afterAll(async () => {
  setLogLevel("info");
  rmSync(dir, { recursive: true, force: true });
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
});

interface Backend {
  target: GcTarget;
  /** Adds an index row whose item does not exist. */
  addOrphan(): Promise<void>;
  checkpoints(threadId: string): Promise<number>;
  /** The item rows stored under `key`, read from the database. */
  rows(key: string): Promise<number>;
  close(): Promise<void>;
}

async function sqliteBackend(): Promise<Backend> {
  const db = new Database(join(dir, `${randomUUID()}.db`));
  const target = sqliteGcTarget(new SqliteCheckpointer(db), new SqliteStore(db, { embeddings: new HashedNgramEmbeddings() }));
  return {
    target,
    addOrphan: async () => {
      db.prepare("INSERT INTO store_fts (rowid, terms) VALUES (987654, 'ghost')").run();
    },
    checkpoints: async (threadId) =>
      (db.prepare("SELECT count(*) AS n FROM checkpoint_checkpoints WHERE thread_id = ?").get(threadId) as { n: number }).n,
    rows: async (key) => (db.prepare("SELECT count(*) AS n FROM store_items WHERE key = ?").get(key) as { n: number }).n,
    close: async () => {
      db.close();
    },
  };
}

async function postgresBackend(): Promise<Backend> {
  const checkpointer = new PostgresCheckpointer(pool, { schema });
  const store = new PostgresStore(pool, { schema, embeddings: new HashedNgramEmbeddings() });
  await Promise.all([checkpointer.setup(), store.setup()]);
  await pool.query(`TRUNCATE ${schema}.store_items CASCADE; TRUNCATE ${schema}.checkpoints, ${schema}.checkpoint_blobs, ${schema}.checkpoint_writes`);
  return {
    target: postgresGcTarget(checkpointer, store),
    // The foreign key forbids orphans; one is made the way a restore could, with its trigger off.
    addOrphan: async () => {
      const client = await pool.connect();
      try {
        await client.query("SET session_replication_role = replica");
        await client.query(`INSERT INTO ${schema}.store_vectors (item_id, dims, embedding) VALUES (987654, 3, '[1,0,0]')`);
        await client.query("SET session_replication_role = DEFAULT");
      } finally {
        client.release();
      }
    },
    checkpoints: async (threadId) =>
      Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.checkpoints WHERE thread_id = $1`, [threadId])).rows[0]?.n),
    rows: async (key) => Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.store_items WHERE key = $1`, [key])).rows[0]?.n),
    close: async () => undefined,
  };
}

describe.each([
  { name: "sqlite", make: sqliteBackend },
  { name: "postgres", make: postgresBackend },
])("collectGarbage on $name", ({ make }) => {
  it("expires idle windows, prunes checkpoints, applies event retention, sweeps expired items, removes orphans; then finds nothing to do", async () => {
    const backend = await make();
    const { checkpointer, store } = backend.target;
    const start = Date.parse("2026-01-01T00:00:00Z");
    let clock = start;
    const graph = await createMemoryGraph({ persistence: { checkpointer, store }, chatModel: null, now: () => new Date(clock) });
    const active = { tenantId: "acme", userId: "u1", sessionId: "active" };
    const idle = { tenantId: "acme", userId: "u1", sessionId: "idle" };
    await graph.runTurn({ ...idle, message: "my order 17 never arrived" });
    for (let i = 0; i < 8; i += 1) {
      clock = start + 3 * 3600_000 + i * 1000;
      await graph.runTurn({ ...active, message: `tell me about bicycles, part ${i}` });
    }
    const activeThread = "acme/u1/active";
    const before = await backend.checkpoints(activeThread);
    expect(before).toBeGreaterThan(5);
    const window = (await graph.sessionState(active))?.messages.map((m) => m.id);
    const old = { id: "old", type: "GENERIC_EVENT", importance: 0.9, createdAt: new Date(clock - 400 * DAY).toISOString(), text: "ancient" };
    await store.put(namespaces.events(active), "old", old);
    await store.put(namespaces.events(active), "recent", { ...old, id: "recent", createdAt: new Date(clock).toISOString() });
    await backend.addOrphan();
    // An item whose TTL (3 ms) runs out before the collection, and one without.
    const scratch = [namespaces.events(active)[0] ?? "", "scratch"];
    await (store as PostgresStore | SqliteStore).put(scratch, "brief", { text: "in Bangkok this week" }, undefined, { ttl: 0.00005 });
    await store.put(scratch, "lasting", { text: "likes tea" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await backend.rows("brief")).toBe(1);

    const options = { now: new Date(clock + 1000), sessionTtlSeconds: 1800, checkpointKeep: 5, retention: { maxEventsPerUser: 1000, eventRetentionDays: 365 } };
    const first = await collectGarbage(backend.target, options);
    expect(first).toEqual({ threads_scanned: 2, sessions_expired: 1, checkpoints_pruned: before - 5, events_dropped: 1, items_expired: 1, orphaned_index_rows: 1 });
    expect(await backend.rows("brief")).toBe(0);
    expect(await backend.rows("lasting")).toBe(1);
    expect(await backend.checkpoints(activeThread)).toBe(5);
    expect(await backend.checkpoints("acme/u1/idle")).toBe(0);
    // The expired session's long-term memory stays; the active window is untouched.
    expect((await loadTranscript(store, idle)).map((r) => r.text)).toContain("my order 17 never arrived");
    expect((await graph.sessionState(active))?.messages.map((m) => m.id)).toEqual(window);
    expect((await store.get(namespaces.events(active), "recent"))?.key).toBe("recent");

    const second = await collectGarbage(backend.target, options);
    expect(second).toEqual({ threads_scanned: 1, sessions_expired: 0, checkpoints_pruned: 0, events_dropped: 0, items_expired: 0, orphaned_index_rows: 0 });

    // Both sessions go on: the active one from its pruned thread, the idle one rebuilt from the store.
    clock += 2000;
    expect((await graph.runTurn({ ...active, message: "and tricycles?" })).status).toBe("OK");
    expect((await graph.runTurn({ ...idle, message: "any news on my order?" })).status).toBe("OK");
    await graph.close();
    await backend.close();
  }, 60_000);
});
