import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryGraph, type MemoryGraph } from "../../src/app/create-memory-graph.js";
import { setLogLevel } from "../../src/logger.js";
import { encodeLabel } from "../../src/memory/namespaces.js";
import { legacyThreadOf, threadIdOf } from "../../src/memory/scope.js";
import { emptyCheckpoint } from "@langchain/langgraph-checkpoint";
import { createServer } from "../../src/server/create-server.js";

setLogLevel("silent");

/** A tenant with characters the label encoding escapes (`.`, `%`; API_KEYS cannot name one with `:`). */
const TENANT = "acme.example%eu";
const USER = "ann@mail.example";
const KEY = "key-of-the-dotted-tenant";

/**
 * The tenant reaches storage in one encoding: a turn through the HTTP service (the tenant from the
 * API key) and one through the library (the tenant as given) land under the same keys, in the
 * store's namespaces and in the checkpointer's threads, and no key holds the tenant as given.
 */
describe("one encoding of the tenant from the API key and from the library to SQL", () => {
  let dir: string;
  let file: string;
  let memory: MemoryGraph;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "tenant-encoding-"));
    file = path.join(dir, "memory.db");
    memory = await createMemoryGraph({ backend: "sqlite", sqlitePath: file, chatModel: null, classifierModel: null, summaryModel: null });
    const app = createServer({ memory, apiKeys: `${TENANT}:${KEY}` });
    const res = await app.request("/v1/turns", {
      method: "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ user_id: USER, session_id: "via.service", message: "I live in Lisbon" }),
    });
    expect(res.status).toBe(200);
    await memory.runTurn({ tenantId: TENANT, userId: USER, sessionId: "via.library", message: "I work at a bakery" });
    await memory.settled();
  });

  afterAll(async () => {
    await memory.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const keys = () => {
    const db = new Database(file, { readonly: true });
    try {
      const paths = (db.prepare("SELECT DISTINCT ns_path FROM store_items").all() as { ns_path: string }[]).map((row) => row.ns_path);
      const threads = (db.prepare("SELECT DISTINCT thread_id FROM checkpoint_checkpoints").all() as { thread_id: string }[]).map((row) => row.thread_id);
      return { paths, threads };
    } finally {
      db.close();
    }
  };

  it("stores every item of both turns under one tenant label", () => {
    const { paths } = keys();
    expect(paths.length).toBeGreaterThan(0);
    expect(new Set(paths.map((p) => p.split("\u001f")[0]))).toEqual(new Set([encodeLabel(TENANT)]));
    expect(paths.some((p) => p.includes("via%2Eservice")) && paths.some((p) => p.includes("via%2Elibrary"))).toBe(true);
  });

  it("keys both sessions' checkpoints by the same labels as the store", () => {
    const { threads } = keys();
    expect(threads.sort()).toEqual([threadIdOf({ tenantId: TENANT, userId: USER, sessionId: "via.library" }), threadIdOf({ tenantId: TENANT, userId: USER, sessionId: "via.service" })].sort());
    for (const thread of threads) expect(thread.startsWith(`${encodeLabel(TENANT)}/${encodeLabel(USER)}/`)).toBe(true);
  });

  it("has no storage key holding the tenant as given", () => {
    const { paths, threads } = keys();
    expect([...paths, ...threads].filter((key) => key.includes(TENANT))).toEqual([]);
  });

  it("reads and forgets both sessions through either door", async () => {
    const user = { tenantId: TENANT, userId: USER };
    expect((await memory.listSessions(user)).sessions.map((s) => s.sessionId).sort()).toEqual(["via.library", "via.service"]);
    const forgotten = await memory.forgetUser(user);
    expect(forgotten.threads).toBe(2);
    expect(keys()).toEqual({ paths: [], threads: [] });
  });
});

describe("a checkpoint thread named the way earlier releases named it", () => {
  it("is forgotten with its session", async () => {
    const memory = await createMemoryGraph({ backend: "memory", chatModel: null, classifierModel: null, summaryModel: null });
    try {
      const scope = { tenantId: TENANT, userId: USER, sessionId: "old.session" };
      const { checkpointer } = memory.persistence;
      const config = { configurable: { thread_id: legacyThreadOf(threadIdOf(scope)), checkpoint_ns: "" } };
      await checkpointer.put(config, emptyCheckpoint(), { source: "input", step: -1, parents: {} }, {});
      expect(await checkpointer.getTuple(config)).toBeDefined();
      expect((await memory.forgetSession(scope)).threads).toBe(1);
      expect(await checkpointer.getTuple(config)).toBeUndefined();
    } finally {
      await memory.close();
    }
  });
});
