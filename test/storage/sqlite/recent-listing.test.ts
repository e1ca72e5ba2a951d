import Database from "better-sqlite3";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { prefixRange } from "../../../src/storage/shared/namespace.js";
import { SqliteStore } from "../../../src/storage/sqlite/store.js";

/** The newest-first listing of a prefix (a search without a query): index order, never a sort of what the prefix holds. */

const user = ["t1", "users", "u1"];
const sessions = [...user, "sessions"];
const transcript = (session: number) => [...sessions, `s${session}`, "messages"];

let open: { db: Database.Database; store: SqliteStore }[] = [];
afterEach(() => {
  for (const { store, db } of open) {
    store.close();
    db.close();
  }
  open = [];
});

/** A store on a fresh in-memory database; `statements` collects every SQL text it runs (bound values inlined). */
function openStore(): { db: Database.Database; store: SqliteStore; statements: string[] } {
  const statements: string[] = [];
  const db = new Database(":memory:", { verbose: (sql) => statements.push(String(sql)) });
  const store = new SqliteStore(db);
  store.setup();
  open.push({ db, store });
  return { db, store, statements };
}

/** The listing by a full sort of every row under the prefix: what the store must answer, page for page. */
function byFullSort(db: Database.Database, prefix: string[], page: { limit: number; offset: number; role?: string }): string[] {
  const { from, to } = prefixRange(prefix);
  const rows = db.prepare("SELECT namespace, key, value FROM store_items WHERE ns_path >= ? AND ns_path < ? ORDER BY updated_at DESC, seq DESC").all(from, to) as { namespace: string; key: string; value: string }[];
  return rows
    .filter((row) => page.role === undefined || (JSON.parse(row.value) as { role?: string }).role === page.role)
    .slice(page.offset, page.offset + page.limit)
    .map((row) => `${row.namespace}/${row.key}`);
}

async function listed(store: SqliteStore, prefix: string[], page: { limit: number; offset: number; role?: string }): Promise<string[]> {
  const items = await store.search(prefix, { limit: page.limit, offset: page.offset, ...(page.role ? { filter: { role: page.role } } : {}) });
  return items.map((item) => `${JSON.stringify(item.namespace)}/${item.key}`);
}

const plansOf = (db: Database.Database, sql: string): string[] => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail);

describe("SqliteStore newest-first listing", () => {
  it("lists a user's messages across sessions without a temporary B-tree: every read follows an index", async () => {
    const { db, store, statements } = openStore();
    for (let s = 0; s < 30; s++) {
      await store.batch(Array.from({ length: 40 }, (_, i) => ({ namespace: transcript(s), key: `m${i}`, value: { text: `message ${i}`, role: i % 2 ? "assistant" : "user" }, index: false as const })));
    }
    for (const page of [{ limit: 200, offset: 0 }, { limit: 10, offset: 50 }, { limit: 20, offset: 0, role: "user" }]) {
      statements.length = 0;
      const keys = await listed(store, sessions, page);
      const reads = statements.filter((sql) => /^\s*(SELECT|WITH)/i.test(sql));
      expect(keys).toEqual(byFullSort(db, sessions, page));
      expect(reads.length).toBeGreaterThan(0);
      for (const sql of reads) {
        const plan = plansOf(db, sql);
        expect(plan.join("\n"), sql).not.toMatch(/TEMP B-TREE/);
        expect(plan.join("\n"), sql).not.toMatch(/^SCAN store_items|^SCAN i\b/m);
      }
    }
    // One namespace (a session's transcript) is one read in index order.
    statements.length = 0;
    await listed(store, transcript(3), { limit: 5, offset: 0 });
    expect(statements.flatMap((sql) => plansOf(db, sql)).join("\n")).toMatch(/USING (COVERING )?INDEX store_items_ns_recent/);
    // The check can fail: the full sort it replaced needs one.
    const { from, to } = prefixRange(sessions);
    expect(plansOf(db, `SELECT id FROM store_items WHERE ns_path >= '${from}' AND ns_path < '${to}' ORDER BY updated_at DESC, seq DESC LIMIT 10`).join("\n")).toMatch(/TEMP B-TREE/);
  });

  it("answers every page as a full sort would, ties of updated_at and a clock that went back included", async () => {
    const write = fc.record({ session: fc.integer({ min: 0, max: 5 }), key: fc.integer({ min: 0, max: 12 }), role: fc.constantFrom("user", "assistant") });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(write, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 80 }),
        fc.record({ limit: fc.integer({ min: 1, max: 30 }), offset: fc.integer({ min: 0, max: 40 }), role: fc.option(fc.constantFrom("user", "assistant"), { nil: undefined }) }),
        async (batches, times, page) => {
          const { db, store } = openStore();
          for (const batch of batches) {
            await store.batch(batch.map((w) => ({ namespace: transcript(w.session), key: `m${w.key}`, value: { text: "x", role: w.role }, index: false as const })));
          }
          // A few distinct times, so that updated_at ties often and disagrees with seq (a clock set back).
          const ids = (db.prepare("SELECT id FROM store_items ORDER BY id").all() as { id: number }[]).map((row) => row.id);
          ids.forEach((id, i) => db.prepare("UPDATE store_items SET updated_at = ? WHERE id = ?").run(`2026-01-0${1 + (times[i % times.length] ?? 0)}T00:00:00.000Z`, id));
          const prefix = page.offset % 2 === 0 ? sessions : user;
          expect(await listed(store, prefix, page)).toEqual(byFullSort(db, prefix, page));
        },
      ),
      { numRuns: 60 },
    );
  });
});
