import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SqliteStore } from "../../../src/storage/sqlite/store.js";

/**
 * Persisted recall indexes on SQLite: a connection that builds a prefix's index stores its
 * snapshot; a new connection (an empty cache) reads it and the items written since, and ranks
 * exactly as a full build; deleting or rewriting what a snapshot holds deletes it in the same
 * transaction; an unreadable one is rebuilt around and replaced.
 */
let dir: string;
let file: string;
const stores: SqliteStore[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "snapshots-"));
  file = join(dir, "store.db");
});

afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(indexSnapshots = true): SqliteStore {
  const store = SqliteStore.open(file, { indexSnapshots });
  stores.push(store);
  return store;
}

const ns = (user: string, session = "s1") => ["t1", "users", user, "sessions", session, "messages"];
const prefix = (user: string) => ["t1", "users", user, "sessions"];
const QUERIES = ["sister Utrecht observatory", "greyhound walk", "pottery teapot grandmother"];
const TEXTS = ["My sister moved to Utrecht for the observatory.", "We adopted a greyhound and walk her daily.", "I made a pottery teapot for my grandmother.", "The observatory opens on Fridays."];

async function write(store: SqliteStore, user: string, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) await store.put(ns(user, `s${i % 3}`), `m${i}`, { role: i % 2 ? "assistant" : "user", text: `${TEXTS[i % TEXTS.length]} (${i})` });
}

async function rankings(user: string, snapshots = true) {
  const store = open(snapshots);
  const out: [string, number | undefined][][] = [];
  for (const query of QUERIES) out.push((await store.search(prefix(user), { query, limit: 8 })).map((hit) => [hit.key, hit.score]));
  await store.indexSnapshotsSettled();
  return out;
}

function snapshotCount(): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT COUNT(*) AS n FROM store_index_snapshots").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

it("stores a snapshot after a build; a new connection reads it, with what was written since, and ranks as a full build", async () => {
  const writer = open();
  await write(writer, "u1", 0, 24);
  await writer.warmSearch(prefix("u1"));
  await writer.indexSnapshotsSettled();
  expect(snapshotCount()).toBe(1);
  await write(open(false), "u1", 24, 30);
  // Read from the snapshot: a full-text row removed behind the store's back is still ranked.
  const db = new Database(file);
  const removed = db.prepare("SELECT id FROM store_items WHERE key = 'm2'").pluck().get() as number;
  const terms = db.prepare("SELECT terms FROM store_fts WHERE rowid = ?").pluck().get(removed) as string;
  db.prepare("DELETE FROM store_fts WHERE rowid = ?").run(removed);
  expect((await rankings("u1")).flat().map(([key]) => key)).toContain("m2");
  db.prepare("INSERT INTO store_fts (rowid, terms) VALUES (?, ?)").run(removed, terms);
  db.close();
  expect(await rankings("u1")).toEqual(await rankings("u1", false));
});

it("deleting, rewriting or deleting the prefix of what a snapshot holds deletes it; a rebuild ranks as a full build", async () => {
  const writer = open();
  for (const user of ["u1", "u2", "u3"]) {
    await write(writer, user, 0, 9);
    await writer.warmSearch(prefix(user));
  }
  await writer.indexSnapshotsSettled();
  expect(snapshotCount()).toBe(3);
  await writer.delete(ns("u1", "s1"), "m1");
  expect(snapshotCount()).toBe(2);
  await writer.put(ns("u2", "s0"), "m0", { role: "user", text: "Redacted." });
  expect(snapshotCount()).toBe(1);
  await writer.deleteNamespacePrefix(["t1", "users", "u3"]);
  expect(snapshotCount()).toBe(0);
  const after = await rankings("u1");
  expect(after.flat().map(([key]) => key)).not.toContain("m1");
  expect(after).toEqual(await rankings("u1", false));
});

it("rebuilds around an unreadable snapshot and replaces it", async () => {
  const writer = open();
  await write(writer, "u1", 0, 12);
  await writer.warmSearch(prefix("u1"));
  await writer.indexSnapshotsSettled();
  const db = new Database(file);
  db.prepare("UPDATE store_index_snapshots SET data = x'00010203'").run();
  db.close();
  expect(await rankings("u1")).toEqual(await rankings("u1", false));
  const check = new Database(file, { readonly: true });
  expect((check.prepare("SELECT length(data) FROM store_index_snapshots").pluck().get() as number) > 100).toBe(true);
  check.close();
});
