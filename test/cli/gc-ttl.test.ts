import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { SqliteStore } from "../../src/storage/sqlite/store.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gc-ttl-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function runGc(file: string) {
  const child = spawn(process.execPath, ["--import", "tsx", path.resolve("src/cli/gc.ts")], {
    env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", MEMORY_BACKEND: "sqlite", SQLITE_PATH: file, LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise<{ code: number | null; stdout: string }>((resolve) => child.once("exit", (code) => resolve({ code, stdout })));
}

describe("npm run gc sweeps items whose TTL ran out", () => {
  it("deletes the expired item's rows from the SQLite file, keeps the rest, and says how many", async () => {
    const file = path.join(dir, "m.db");
    const store = SqliteStore.open(file);
    const ns = ["acme", "notes"];
    await store.put(ns, "brief", { text: "in Bangkok this week" }, undefined, { ttl: 0.00005 });
    await store.put(ns, "lasting", { text: "likes tea" });
    store.close();
    await new Promise((resolve) => setTimeout(resolve, 20));

    const run = await runGc(file);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ backend: "sqlite", items_expired: 1 });
    const db = new Database(file, { readonly: true });
    const keys = db.prepare("SELECT key FROM store_items").all() as { key: string }[];
    const fts = db.prepare("SELECT count(*) AS n FROM store_fts").get() as { n: number };
    db.close();
    expect(keys.map((k) => k.key)).toEqual(["lasting"]);
    expect(fts.n).toBe(1);
  }, 30_000);
});
