import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createMemoryGraph, type MemoryGraph } from "../../src/app/create-memory-graph.js";
import type { Logger } from "../../src/logger.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { getTranscriptMessage } from "../../src/memory/transcript.js";
import { startProvider, type Provider } from "../support/openai-provider.js";

/**
 * The reply's vector is off the turn's path (`saveAnswer`): the real OpenAI clients against the
 * local stand-in, whose embeddings of the reply are held until the test lets them go, on a SQLite
 * file. The turn answers while the reply's embedding is held; the reply's row is stored by then
 * (found by text), its vector lands after; a delete in between stays; a failed embedding leaves the
 * row, logged. Both ways a turn hands its result over: at the reply (a model classifies) and at
 * the run's end (rules classify).
 */
const scope = { tenantId: "acme", userId: "u1", sessionId: "s1" };
const message = "Hi! What does the family plan cost per month?";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-reply-vector-"));
let provider: Provider | undefined;
let graph: MemoryGraph | undefined;

afterEach(async () => {
  await graph?.close();
  await provider?.close();
  graph = provider = undefined;
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A promise the test settles: the stand-in's answer to the reply's embeddings waits for it. */
function heldGate() {
  let release: () => void = () => undefined;
  let refuse: () => void = () => undefined;
  const promise = new Promise<void>((resolve, reject) => {
    release = resolve;
    refuse = () => reject(new Error("refused"));
  });
  promise.catch(() => undefined);
  let requested: () => void = () => undefined;
  const asked = new Promise<void>((resolve) => (requested = resolve));
  return { promise, release, refuse, asked, requested };
}

type Gate = ReturnType<typeof heldGate>;

async function open(name: string, classify: "auto" | "rules", gate: Gate) {
  const file = path.join(dir, `${name}.db`);
  const warnings: string[] = [];
  const quiet = () => undefined;
  const logger: Logger = { debug: quiet, info: quiet, error: quiet, warn: (_fields, event) => warnings.push(event) };
  provider = await startProvider("ok");
  // Only the reply's embeddings are held (its text is the stand-in's "stub reply to: …").
  provider.gate = (body) => {
    if (!JSON.stringify(body.input ?? "").includes("stub reply to")) return null;
    gate.requested();
    return gate.promise;
  };
  graph = await createMemoryGraph({ backend: "sqlite", sqlitePath: file, openai: { baseUrl: provider.baseUrl, model: "gpt-4o-mini", timeoutMs: 5000 }, retry: { retries: 0, baseDelayMs: 1 }, classify, logger });
  return { graph, file, warnings };
}

/** `turn`'s result, or a failure when it is not back within 5 s (the turn waited for the held embedding). */
async function answered<T>(turn: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the turn did not answer while the reply's embedding was held")), 5000);
  });
  try {
    return await Promise.race([turn, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Vectors stored for the item `key`, and vectors whose item is gone: read from the file by a connection of the test's own. */
function vectorsOf(file: string, key: string): { own: number; orphaned: number } {
  const db = new Database(file, { readonly: true });
  try {
    const own = db.prepare("SELECT count(*) AS n FROM store_items i JOIN store_vectors v ON v.item_id = i.id WHERE i.key = ?").get(key) as { n: number };
    const orphaned = db.prepare("SELECT count(*) AS n FROM store_vectors WHERE item_id NOT IN (SELECT id FROM store_items)").get() as { n: number };
    return { own: own.n, orphaned: orphaned.n };
  } finally {
    db.close();
  }
}

describe.each(["auto", "rules"] as const)("the reply's vector, classify %s", (classify) => {
  it("answers while the reply's embedding is held, with the reply stored and found by text; its vector lands after", async () => {
    const gate = heldGate();
    const { graph, file } = await open(`late-${classify}`, classify, gate);
    const result = await answered(graph.runTurn({ ...scope, message, messageId: "m-1" }));
    expect(result.status).toBe("OK");
    const replyId = result.candidate?.id ?? "";
    await gate.asked;
    expect(await getTranscriptMessage(graph.persistence.store, scope, replyId)).toMatchObject({ role: "assistant", text: `stub reply to: ${message}` });
    expect(vectorsOf(file, replyId).own).toBe(0);
    const found = await graph.persistence.store.search(namespaces.transcript(scope), { query: "family plan cost", limit: 5 });
    expect(found.map((item) => item.key)).toContain(replyId);
    gate.release();
    await graph.settled();
    expect(vectorsOf(file, replyId).own).toBe(1);
  });

  it("leaves a reply deleted between the answer and its vector deleted, with no vector", async () => {
    const gate = heldGate();
    const { graph, file } = await open(`deleted-${classify}`, classify, gate);
    const result = await answered(graph.runTurn({ ...scope, message, messageId: "m-1" }));
    const replyId = result.candidate?.id ?? "";
    await gate.asked;
    await graph.persistence.store.delete(namespaces.transcript(scope), replyId);
    gate.release();
    await graph.settled();
    expect(await getTranscriptMessage(graph.persistence.store, scope, replyId)).toBeNull();
    expect(vectorsOf(file, replyId)).toEqual({ own: 0, orphaned: 0 });
  });

  it("keeps the reply when its embedding fails, and logs the failure", async () => {
    const gate = heldGate();
    const { graph, file, warnings } = await open(`failed-${classify}`, classify, gate);
    const result = await answered(graph.runTurn({ ...scope, message, messageId: "m-1" }));
    const replyId = result.candidate?.id ?? "";
    await gate.asked;
    gate.refuse();
    await graph.settled();
    expect(warnings).toContain("memory.late_write_failed");
    expect(await getTranscriptMessage(graph.persistence.store, scope, replyId)).toMatchObject({ role: "assistant" });
    expect(vectorsOf(file, replyId).own).toBe(0);
    // A retry of the turn replays its result and writes nothing again.
    const replay = await graph.runTurn({ ...scope, message, messageId: "m-1" });
    expect(replay).toMatchObject({ replayed: true, candidate: { id: replyId } });
  });
});
