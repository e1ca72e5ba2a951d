import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteCheckpointer } from "../../../src/storage/sqlite/checkpointer.js";
import { SqliteStore } from "../../../src/storage/sqlite/store.js";

/**
 * The writes a turn or a forget makes on SQLite (pruning after every turn, deleting a thread,
 * deleting a namespace prefix) wait for another worker's write lock without blocking the event
 * loop: a second connection holds the lock for 80 ms while a 1 ms timer keeps counting.
 */
describe("SQLite hot-path writes under another connection's write lock", () => {
  const opened: Database.Database[] = [];
  const dirs: string[] = [];
  function twoConnections(): [Database.Database, Database.Database] {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-hot-"));
    dirs.push(dir);
    const file = path.join(dir, "m.db");
    const [a, b] = [new Database(file), new Database(file)];
    for (const db of [a, b]) {
      db.pragma("journal_mode = WAL");
      db.pragma("busy_timeout = 5000");
    }
    opened.push(a, b);
    return [a, b];
  }
  afterEach(() => {
    for (const db of opened.splice(0)) if (db.open) db.close();
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `write` on one connection while `holder` keeps the write lock for 80 ms; returns the result, the wait and the timer ticks. */
  async function whileLocked<T>(holder: Database.Database, write: () => Promise<T>): Promise<{ result: T; waited: number; ticks: number }> {
    holder.exec("BEGIN IMMEDIATE");
    holder.exec("CREATE TABLE IF NOT EXISTS lock_holder (n INTEGER)");
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 1);
    setTimeout(() => holder.exec("COMMIT"), 80);
    const started = Date.now();
    try {
      const result = await write();
      return { result, waited: Date.now() - started, ticks };
    } finally {
      clearInterval(ticker);
    }
  }

  async function threadWithCheckpoints(saver: SqliteCheckpointer, threadId: string, count: number): Promise<void> {
    let config = { configurable: { thread_id: threadId, checkpoint_ns: "" } } as Parameters<SqliteCheckpointer["put"]>[0];
    for (let i = 0; i < count; i += 1) {
      const checkpoint = { ...emptyCheckpoint(), id: `cp-${String(i).padStart(3, "0")}`, channel_versions: { n: i + 1 }, channel_values: { n: i } };
      config = await saver.put(config, checkpoint, { source: "loop", step: i, parents: {} }, { n: i + 1 });
    }
  }

  it("pruneThread waits without blocking, then prunes", async () => {
    const [a, b] = twoConnections();
    const saver = new SqliteCheckpointer(b);
    await threadWithCheckpoints(saver, "t1", 8);
    const { result, waited, ticks } = await whileLocked(a, () => saver.pruneThread("t1", 3));
    expect(result).toBe(5);
    expect(waited).toBeGreaterThanOrEqual(70);
    expect(ticks).toBeGreaterThan(5);
    expect(b.pragma("busy_timeout", { simple: true })).toBe(5000);
  });

  it("deleteThread waits without blocking, then deletes the thread", async () => {
    const [a, b] = twoConnections();
    const saver = new SqliteCheckpointer(b);
    await threadWithCheckpoints(saver, "t1", 3);
    const { waited, ticks } = await whileLocked(a, () => saver.deleteThread("t1"));
    expect(waited).toBeGreaterThanOrEqual(70);
    expect(ticks).toBeGreaterThan(5);
    expect(await saver.getTuple({ configurable: { thread_id: "t1", checkpoint_ns: "" } })).toBeUndefined();
  });

  it("deleteNamespacePrefix waits without blocking, then deletes under the prefix only", async () => {
    const [a, b] = twoConnections();
    const store = new SqliteStore(b);
    await store.put(["t1", "users", "u1", "facts"], "f", { text: "likes tea" });
    await store.put(["t1", "users", "u2", "facts"], "f", { text: "likes coffee" });
    const { result, waited, ticks } = await whileLocked(a, () => store.deleteNamespacePrefix(["t1", "users", "u1"]));
    expect(result).toBe(1);
    expect(waited).toBeGreaterThanOrEqual(70);
    expect(ticks).toBeGreaterThan(5);
    expect((await store.search(["t1", "users"])).map((item) => item.namespace[2])).toEqual(["u2"]);
  });
});
