import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqlite } from "../../../src/storage/sqlite/open.js";
import { openWhenFree } from "../../../src/storage/sqlite/open-checks.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("opening a SQLite file another process is opening", () => {
  it("retries SQLITE_BUSY until the open succeeds, and throws any other error at once", async () => {
    let calls = 0;
    const busy = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    await expect(
      openWhenFree(() => {
        calls += 1;
        if (calls < 3) throw busy;
        return "open";
      }),
    ).resolves.toBe("open");
    expect(calls).toBe(3);
    let other = 0;
    const corrupt = Object.assign(new Error("file is not a database"), { code: "SQLITE_NOTADB" });
    await expect(
      openWhenFree(() => {
        other += 1;
        throw corrupt;
      }),
    ).rejects.toBe(corrupt);
    expect(other).toBe(1);
  });

  it("opens a new file whose write lock another connection holds, once that connection lets go", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-open-busy-"));
    dirs.push(dir);
    const file = path.join(dir, "memory.db");
    // Another opener mid-way: the file exists, in rollback mode, and its write lock is held.
    const other = new Database(file, { timeout: 0 });
    other.exec("CREATE TABLE t (x); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1);");
    setTimeout(() => {
      other.exec("COMMIT");
      other.close();
    }, 6_000);
    const memory = await openSqlite({ path: file });
    expect(memory.kind).toBe("sqlite");
    await memory.store.put(["t"], "k", { text: "hello" });
    expect((await memory.store.get(["t"], "k"))?.value).toEqual({ text: "hello" });
    await memory.close();
  }, 30_000);
});
