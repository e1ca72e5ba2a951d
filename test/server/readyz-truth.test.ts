import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { testServer, type TestServer } from "./helpers.js";

/** /readyz tells the truth: it fails while the store cannot serve a request, not only while the file cannot be opened. */
describe("/readyz on SQLite", () => {
  let server: TestServer;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-readyz-"));

  afterEach(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("answers 503 while searches fail (the full-text table is gone), though the connection answers", async () => {
    const file = path.join(dir, "m.db");
    server = await testServer({ backend: "sqlite", sqlitePath: file });
    expect((await server.call("POST", "/v1/turns", { body: { user_id: "u1", session_id: "s1", message: "hello" } })).status).toBe(200);
    expect((await server.call("GET", "/readyz", { key: null })).status).toBe(200);
    const other = new Database(file);
    other.exec("DROP TABLE store_fts");
    other.close();
    const turn = await server.call("POST", "/v1/turns", { body: { user_id: "u2", session_id: "s1", message: "hello again" } });
    expect(turn.status).toBeGreaterThanOrEqual(500);
    expect((await server.call("GET", "/readyz", { key: null })).status).toBe(503);
  });
});
