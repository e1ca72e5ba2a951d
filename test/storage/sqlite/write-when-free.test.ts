import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { writeWhenFree } from "../../../src/storage/sqlite/write-when-free.js";

describe("writeWhenFree", () => {
  const opened: Database.Database[] = [];
  const dirs: string[] = [];
  /** Two connections to one file, as two workers have; both wait up to 5 s by their own setting. */
  function twoConnections(): [Database.Database, Database.Database] {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-write-"));
    dirs.push(dir);
    const file = path.join(dir, "m.db");
    const a = new Database(file);
    a.pragma("journal_mode = WAL");
    a.exec("CREATE TABLE t (n INTEGER)");
    const b = new Database(file);
    for (const db of [a, b]) db.pragma("busy_timeout = 5000");
    opened.push(a, b);
    return [a, b];
  }
  afterEach(() => {
    for (const db of opened.splice(0)) db.close();
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("waits for another connection's write lock without blocking the event loop, then writes", async () => {
    const [a, b] = twoConnections();
    a.exec("BEGIN IMMEDIATE");
    a.prepare("INSERT INTO t VALUES (1)").run();
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 1);
    setTimeout(() => a.exec("COMMIT"), 60);
    const started = Date.now();
    await writeWhenFree(b, () => b.transaction(() => b.prepare("INSERT INTO t VALUES (2)").run()).immediate());
    clearInterval(ticker);
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    // Timers ran while the write waited: the other connection's COMMIT is itself a timer, so a
    // write that blocked the thread could never have succeeded. Counting 1 ms ticks beyond "some"
    // raced the clock on a loaded machine (2 ticks seen in a full run).
    expect(ticks).toBeGreaterThan(0);
    expect(b.prepare("SELECT n FROM t ORDER BY n").pluck().all()).toEqual([1, 2]);
    expect(b.pragma("busy_timeout", { simple: true })).toBe(5000);
  });

  it("gives up with SQLITE_BUSY after its wait, changing nothing, and restores busy_timeout", async () => {
    const [a, b] = twoConnections();
    a.exec("BEGIN IMMEDIATE");
    await expect(writeWhenFree(b, () => b.prepare("INSERT INTO t VALUES (3)").run(), 40)).rejects.toMatchObject({ code: "SQLITE_BUSY" });
    a.exec("ROLLBACK");
    expect(b.prepare("SELECT count(*) FROM t").pluck().get()).toBe(0);
    expect(b.pragma("busy_timeout", { simple: true })).toBe(5000);
  });

  it("passes other errors on at once", async () => {
    const [, b] = twoConnections();
    await expect(writeWhenFree(b, () => b.prepare("INSERT INTO missing VALUES (1)").run())).rejects.toThrow(/no such table/);
    expect(b.pragma("busy_timeout", { simple: true })).toBe(5000);
  });
});
