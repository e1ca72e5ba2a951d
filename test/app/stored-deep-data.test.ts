import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryGraph, type MemoryGraph } from "../../src/app/create-memory-graph.js";
import { setLogLevel, setLogSink } from "../../src/logger.js";
import { collectGarbage } from "../../src/memory/gc.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { SqliteStore } from "../../src/storage/sqlite/store.js";

setLogLevel("silent");

/**
 * Data stored before inputs were bounded (an event payload nested 1,000 or 4,000 levels deep)
 * breaks no read: turns of every tenant, the same user's next turns, export and GC go on, the
 * bad record skipped with a warning.
 */
describe("already stored data over the structure bound", () => {
  const dirs: string[] = [];
  let graph: MemoryGraph | undefined;

  afterEach(async () => {
    await graph?.close();
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
    setLogSink((line) => process.stdout.write(`${line}\n`));
    setLogLevel("silent");
  });

  const deep = (levels: number): Record<string, unknown> => JSON.parse(`${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`) as Record<string, unknown>;

  it.each([1_000, 4_000])("breaks no read at %i levels, and is skipped with a warning", async (levels) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-deep-"));
    dirs.push(dir);
    const file = path.join(dir, "m.db");
    graph = await createMemoryGraph({ backend: "sqlite", sqlitePath: file, chatModel: null, classifierModel: null, summaryModel: null });
    const user = { tenantId: "t1", userId: "u1" };
    expect((await graph.runTurn({ ...user, sessionId: "s1", message: "I love hiking in the hills" })).status).toBe("OK");
    // Planted as an older version stored it: an important event whose payload nests too deep.
    const event = { id: "deep", type: "INFORMATION", importance: 0.95, intent: "x", entities: [], language: "en", text: "hiking", messageId: "deep", sessionId: "s1", createdAt: new Date().toISOString(), classifiedBy: "keywords" };
    await graph.persistence.store.put(namespaces.events(user), "deep", { ...event, payload: deep(levels) }, false);
    // Another connection writes to the file (a second worker, the chat CLI, gc).
    const other = SqliteStore.open(file);
    await other.put(["t2", "users", "x", "notes"], "n1", { text: "another writer" });
    other.close();

    const warnings: string[] = [];
    setLogLevel("warn");
    setLogSink((line) => warnings.push(line));
    expect((await graph.runTurn({ tenantId: "t2", userId: "v", sessionId: "s", message: "hello" })).status).toBe("OK");
    expect((await graph.search({ tenantId: "t2", userId: "v", query: "hello" })).hits.length).toBeGreaterThan(0);
    for (const message of ["what do I like doing?", "and where?"]) {
      expect((await graph.runTurn({ ...user, sessionId: "s1", message })).status).toBe("OK");
    }
    const exported = await graph.exportUser(user);
    expect(exported.events.map((e) => e.id)).not.toContain("deep");
    await expect(collectGarbage(graph.persistence, { upkeep: (thread) => graph!.finishUpkeep(thread), now: new Date() })).resolves.toBeDefined();
    expect(warnings.some((line) => line.includes("too_deep"))).toBe(true);
  });
});
