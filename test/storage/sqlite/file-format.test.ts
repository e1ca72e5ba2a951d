import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { SQLITE_PAGE_SIZE } from "../../../src/storage/sqlite/file-format.js";
import { openSqlite } from "../../../src/storage/sqlite/open.js";
import { SqliteStore } from "../../../src/storage/sqlite/store.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "sqlite-format-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const ns = ["t1", "users", "u1", "messages"];
const pageSize = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma("page_size", { simple: true }) as number;
  } finally {
    db.close();
  }
};

describe("SQLite file format", () => {
  it("gives a new file 8 KiB pages", async () => {
    const file = join(dir, "new.db");
    const persistence = await openSqlite({ path: file });
    await persistence.store.put(ns, "m1", { text: "a new file" });
    await persistence.close();
    expect(SQLITE_PAGE_SIZE).toBe(8192);
    expect(pageSize(file)).toBe(SQLITE_PAGE_SIZE);
  });

  it("leaves a file made with 4 KiB pages as it is, and reads it as before", async () => {
    const file = join(dir, "old.db");
    const db = new Database(file);
    db.pragma("page_size = 4096");
    db.pragma("journal_mode = WAL");
    const old = new SqliteStore(db);
    await old.put(ns, "m1", { text: "remember the blue bicycle" });
    old.close();
    db.close();

    const persistence = await openSqlite({ path: file });
    expect((await persistence.store.get(ns, "m1"))?.value).toEqual({ text: "remember the blue bicycle" });
    await persistence.store.put(ns, "m2", { text: "and the red one" });
    await persistence.close();
    expect(pageSize(file)).toBe(4096);
  });
});
