import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeferredVectorPut, StorePort } from "../../src/memory/ports/store.js";
import { HashedNgramEmbeddings } from "../../src/memory/ranking/hash-embedder.js";
import { PostgresStore } from "../../src/storage/postgres/store.js";
import { SqliteStore } from "../../src/storage/sqlite/store.js";
import { POSTGRES_ADMIN_URL } from "../support/postgres.js";

/**
 * `deferVector` and `embedDeferred` on both engines (real SQLite file, local Postgres with
 * pgvector): the item is stored and found by text at once, its vector written later and only onto
 * the row as it was read — an item deleted or rewritten while its vector is computed is left so.
 */

/** Embeddings whose next document call waits until the test lets it go (`hold`), telling it when it has started. */
class HeldEmbeddings implements EmbeddingsInterface {
  private readonly inner = new HashedNgramEmbeddings();
  private held: { gate: Promise<void>; started: () => void } | null = null;

  /** Holds the next document call: `started` resolves when it begins, `release()` lets it finish. */
  hold(): { started: Promise<void>; release: () => void } {
    let release: () => void = () => undefined;
    let started: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const begun = new Promise<void>((resolve) => (started = resolve));
    this.held = { gate, started };
    return { started: begun, release };
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    const held = this.held;
    this.held = null;
    if (held) {
      held.started();
      await held.gate;
    }
    return this.inner.embedDocuments(texts);
  }

  embedQuery(text: string): Promise<number[]> {
    return this.inner.embedQuery(text);
  }
}

interface Engine {
  store: StorePort;
  embeddings: HeldEmbeddings;
  /** Vectors stored for items at `key`, and vectors whose item is gone. */
  vectors(key: string): Promise<{ own: number; orphaned: number }>;
}

const ns = ["acme", "users", "u1", "sessions", "s1", "messages"];
const record = (text: string) => ({ role: "assistant", text, createdAt: "2026-01-05T10:00:00.000Z" });
const deferred = (key: string, text: string): DeferredVectorPut => ({ namespace: ns, key, value: record(text), deferVector: true });

function describeDeferredVectors(name: string, open: () => Promise<Engine>) {
  describe(`${name}: vectors written after their items`, () => {
    it("stores a deferred put found by text, with no vector until embedDeferred writes it; a second call writes nothing", async () => {
      const { store, vectors } = await open();
      await store.batch([deferred("r1", "The family plan costs 30 euros a month")]);
      expect(await vectors("r1")).toEqual({ own: 0, orphaned: 0 });
      const found = await store.search(ns, { query: "family plan", limit: 5 });
      expect(found.map((item) => item.key)).toEqual(["r1"]);
      expect(await store.embedDeferred(ns, ["r1"])).toBe(1);
      expect(await vectors("r1")).toEqual({ own: 1, orphaned: 0 });
      expect(await store.embedDeferred(ns, ["r1"])).toBe(0);
      expect(await vectors("r1")).toEqual({ own: 1, orphaned: 0 });
    });

    it("leaves an item deleted while its vector is computed deleted, with no vector", async () => {
      const { store, embeddings, vectors } = await open();
      await store.batch([deferred("r1", "The family plan costs 30 euros a month")]);
      const held = embeddings.hold();
      const late = store.embedDeferred(ns, ["r1"]);
      await held.started;
      await store.delete(ns, "r1");
      held.release();
      expect(await late).toBe(0);
      expect(await store.get(ns, "r1")).toBeNull();
      expect(await vectors("r1")).toEqual({ own: 0, orphaned: 0 });
    });

    it.each([
      { how: "with its vector", deferVector: false, own: 1 },
      { how: "deferred again", deferVector: true, own: 0 },
    ])("writes nothing onto an item rewritten ($how) while its vector is computed", async ({ deferVector, own }) => {
      const { store, embeddings, vectors } = await open();
      await store.batch([deferred("r1", "The family plan costs 30 euros a month")]);
      const held = embeddings.hold();
      const late = store.embedDeferred(ns, ["r1"]);
      await held.started;
      await store.batch([{ ...deferred("r1", "The family plan costs 35 euros a month"), deferVector }]);
      held.release();
      expect(await late).toBe(0);
      expect((await store.get(ns, "r1"))?.value).toMatchObject({ text: "The family plan costs 35 euros a month" });
      expect(await vectors("r1")).toEqual({ own, orphaned: 0 });
    });

    it("gives an unindexed item no vector", async () => {
      const { store, vectors } = await open();
      await store.batch([{ namespace: ns, key: "r1", value: record("The family plan costs 30 euros a month"), index: false }]);
      expect(await store.embedDeferred(ns, ["r1"])).toBe(0);
      expect(await vectors("r1")).toEqual({ own: 0, orphaned: 0 });
    });
  });
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-deferred-vectors-"));
const opened: { close: () => Promise<void> | void }[] = [];
afterAll(async () => {
  for (const engine of opened) await engine.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describeDeferredVectors("SqliteStore", async () => {
  const file = path.join(dir, `${randomUUID()}.db`);
  const embeddings = new HeldEmbeddings();
  const store = SqliteStore.open(file, { embeddings });
  opened.push(store);
  const vectors = async (key: string) => {
    const db = new Database(file, { readonly: true });
    try {
      const own = db.prepare("SELECT count(*) AS n FROM store_items i JOIN store_vectors v ON v.item_id = i.id WHERE i.key = ?").get(key) as { n: number };
      const orphaned = db.prepare("SELECT count(*) AS n FROM store_vectors WHERE item_id NOT IN (SELECT id FROM store_items)").get() as { n: number };
      return { own: own.n, orphaned: orphaned.n };
    } finally {
      db.close();
    }
  };
  return { store, embeddings, vectors };
});

const schemas: string[] = [];
let pool: pg.Pool;
beforeAll(() => {
  pool = new pg.Pool({ connectionString: POSTGRES_ADMIN_URL, max: 4 });
});
afterAll(async () => {
  for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
});

describeDeferredVectors("PostgresStore", async () => {
  const schema = `mg_deferred_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  schemas.push(schema);
  const embeddings = new HeldEmbeddings();
  const store = new PostgresStore(pool, { schema, embeddings });
  expect((await store.setup()).vectors).toBe(true);
  const vectors = async (key: string) => {
    const own = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.store_items i JOIN ${schema}.store_vectors v ON v.item_id = i.id WHERE i.key = $1`, [key]);
    const orphaned = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.store_vectors WHERE item_id NOT IN (SELECT id FROM ${schema}.store_items)`);
    return { own: Number(own.rows[0]?.n), orphaned: Number(orphaned.rows[0]?.n) };
  };
  return { store, embeddings, vectors };
});
