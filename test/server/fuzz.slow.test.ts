import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { serve } from "@hono/node-server";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryGraph, type MemoryGraph } from "../../src/app/create-memory-graph.js";
import { optionsFromEnv } from "../../src/app/options-from-env.js";
import { loadEnv } from "../../src/config.js";
import { setLogLevel, setLogSink } from "../../src/logger.js";
import { createServer } from "../../src/server/create-server.js";
import { KNOWN, send } from "../support/fuzz-requests.js";
import { fuzzService, json, runGc } from "../support/fuzz-service.js";

/**
 * [slow] Generated requests — valid and hostile turn bodies, odd ids and path encodings, content
 * types, bad keys — against the service on 127.0.0.1 (the real HTTP stack, SQLite on a file, API
 * keys on). For every one: no 5xx, no stack trace or file path in the body, every 4xx the JSON
 * error shape, and a 4xx leaves the database as it was: every row of every table, read from a second
 * connection, is the same before and after. Only the turn lock may have been taken and let go (a
 * turn refused under its session's lock, e.g. for an unknown parent): it is coordination, not
 * memory, and no lock row may outlive the request. Two workers (two graphs, each its own
 * connection and server) take the requests in turn, and a second process writes to the same file
 * throughout (as the chat CLI or gc would; its rows are left out of the comparison). Afterwards a
 * plain turn of another tenant answers 200 and `npm run gc` exits 0. FUZZ_SEED / FUZZ_RUNS override.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_917);
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const KEY_A = "fuzz-key-tenant-a";
const KEY_B = "fuzz-key-tenant-b";

describe("[slow] fuzzing the HTTP API", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-fuzz-"));
  const file = path.join(dir, "memory.db");
  const errorLogs: string[] = [];
  const workers: { memory: MemoryGraph; server: Server; port: number }[] = [];
  let writer: ChildProcess;
  let sent = 0;
  let probe: Database.Database;
  /** The port of the worker that takes the next request. */
  const nextPort = () => workers[sent++ % workers.length]!.port;

  /** A digest of every row of every table but the turn locks, read from the probe's connection. */
  const stored = () => {
    const hash = createHash("sha256");
    const tables = probe.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('turn_locks', 'sqlite_sequence') ORDER BY name").pluck().all() as string[];
    for (const table of tables) {
      hash.update(`\0${table}\0`);
      const where = table === "store_items" ? ` WHERE ns_path NOT LIKE '${WRITER_TENANT}%'` : "";
      for (const row of probe.prepare(`SELECT * FROM "${table}"${where}`).raw().iterate()) hash.update(JSON.stringify(row, (_, v: unknown) => (Buffer.isBuffer(v) ? v.toString("base64") : v)));
    }
    return hash.digest("hex");
  };
  /** Waits until no turn holds a lock and no worker has work of an earlier request in flight, so nothing of it is still being written. */
  const quiet = async () => {
    // A turn's upkeep and a recall index's snapshot write run after the answer, off the turn lock.
    for (const { memory } of workers) {
      await memory.settled();
      await (memory.persistence.store as { indexSnapshotsSettled?: () => Promise<void> }).indexSnapshotsSettled?.();
    }
    const held = probe.prepare("SELECT count(*) AS n FROM turn_locks");
    while ((held.get() as { n: number }).n > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  beforeAll(async () => {
    const digestB = createHash("sha256").update(KEY_B).digest("hex");
    const env = loadEnv({
      SQLITE_PATH: file,
      API_KEYS: `tenantA:${KEY_A},tenantB:sha256:${digestB}`,
      BODY_LIMIT_BYTES: "4096",
      MAX_PROMPT_CHARS: "1000",
    });
    setLogLevel("error");
    setLogSink((line) => errorLogs.push(line));
    for (let i = 0; i < 2; i += 1) {
      const memory = await createMemoryGraph(optionsFromEnv(env));
      const app = createServer({ memory, apiKeys: env.API_KEYS, bodyLimitBytes: env.BODY_LIMIT_BYTES });
      const server = await new Promise<Server>((resolve) => {
        const listening = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(listening)) as Server;
      });
      workers.push({ memory, server, port: (server.address() as AddressInfo).port });
    }
    probe = new Database(file, { readonly: true });
    // Another process writing to the file all along: every worker's index cache sees foreign commits.
    writer = spawn(process.execPath, ["-e", WRITER_SCRIPT, file], { stdio: "ignore" });
  }, 60_000);

  afterAll(async () => {
    writer.kill();
    probe.close();
    for (const { server, memory } of workers) {
      await new Promise((resolve) => server.close(resolve));
      await memory.close();
    }
    setLogSink((line) => process.stdout.write(`${line}\n`));
    setLogLevel("silent");
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("seeds data under the known ids, and the write probe sees a turn's writes", async () => {
    const before = stored();
    for (const key of [KEY_A, KEY_B]) {
      for (const user of KNOWN.users) {
        for (const session of KNOWN.sessions) {
          const body = { user_id: user, session_id: session, message: "My email is fuzz@example.com and I prefer tea." };
          const res = await send(nextPort(), json("POST", "/v1/turns", key, body));
          expect(res.status, res.text).toBe(200);
        }
      }
    }
    expect(stored()).not.toBe(before);
  });

  it("answers every generated request without a 5xx or internals, with JSON errors, storing nothing on a 4xx", async () => {
    await fuzzService({ keys: [KEY_A, KEY_B], nextPort, stored, quiet, recentErrors: () => errorLogs.slice(-3).join("\n"), seed: SEED, runs: RUNS });
  }, 120_000);

  it("serves a plain turn of another tenant on every worker afterwards, and `npm run gc` exits 0", async () => {
    for (const { port } of workers) {
      const res = await send(port, json("POST", "/v1/turns", KEY_B, { user_id: `after-${port}`, session_id: "s", message: "still there?" }));
      expect(res.status, res.text).toBe(200);
    }
    const gc = await runGc({ SQLITE_PATH: file, MEMORY_BACKEND: "sqlite" });
    expect(gc.code, gc.stderr).toBe(0);
  }, 60_000);
});

const WRITER_TENANT = "fz-writer";
/** Inserts an unindexed item of its own tenant every 20 ms (a foreign commit, as the store writes one). */
const WRITER_SCRIPT = `
const Database = require(${JSON.stringify(path.resolve("node_modules/better-sqlite3"))});
const db = new Database(process.argv[1]);
db.pragma("busy_timeout = 5000");
let n = 0;
const put = db.prepare("INSERT INTO store_items (ns_path, namespace, key, value, created_at, updated_at, seq) VALUES (?, ?, ?, ?, ?, ?, (SELECT IFNULL(MAX(seq), 0) + 1 FROM store_items))");
setInterval(() => {
  const now = new Date().toISOString();
  try { put.run("${WRITER_TENANT}\u001fnotes\u001f", JSON.stringify(["${WRITER_TENANT}", "notes"]), "n" + n++, JSON.stringify({ text: "foreign write" }), now, now); } catch {}
}, 20);
`;
