import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryGraph, type MemoryGraph } from "../../src/app/create-memory-graph.js";
import { optionsFromEnv } from "../../src/app/options-from-env.js";
import { loadEnv } from "../../src/config.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { startProvider, type Provider } from "../support/openai-provider.js";

/** The real ChatOpenAI client against a local OpenAI-compatible server: success and every failure. */
let provider: Provider | undefined;
let graph: MemoryGraph | undefined;
const scope = { tenantId: "acme", userId: "u1", sessionId: "s1" };

async function open(mode: Provider["mode"]) {
  provider = await startProvider(mode);
  graph = await createMemoryGraph({
    backend: "memory",
    openai: { baseUrl: provider.baseUrl, model: "gpt-4o-mini", timeoutMs: 500 },
    retry: { retries: 1, baseDelayMs: 1 },
  });
  return { provider, graph };
}

afterEach(async () => {
  await graph?.close();
  await provider?.close();
});

describe("call_model through ChatOpenAI and a local provider", () => {
  it("answers with the provider's reply and a model-classified event", async () => {
    const { graph, provider } = await open("ok");
    // A statement about the user: the `auto` policy asks the model (a question would stay local).
    const turn = { ...scope, message: "I bought the blue kettle last week.", messageId: "m-kettle" };
    const result = await graph.runTurn(turn);
    expect(result.status).toBe("OK");
    expect(result.candidate).toMatchObject({ model: "gpt-4o-mini", text: "stub reply to: I bought the blue kettle last week." });
    // The result does not wait for the classification; the stored result (a retry's replay) has it.
    await graph.settled();
    const replay = await graph.runTurn(turn);
    expect(replay).toMatchObject({ replayed: true, candidate: result.candidate });
    expect(replay.event).toMatchObject({ type: "INQUIRY", classifiedBy: "model", classifyPolicy: "auto", classifyReason: "first_person_event" });
    expect(provider.requests.some((r) => r.path.endsWith("/chat/completions"))).toBe(true);
  });

  it.each(["error500", "timeout", "malformed"] as const)("on %s: falls back where it can, answers ERROR where it cannot, loses nothing", async (mode) => {
    const { graph } = await open(mode);
    const result = await graph.runTurn({ ...scope, message: "This is broken, I want a refund" });
    expect(result.status).toBe("ERROR");
    expect(result.candidate).toBeNull();
    expect(result.event).toMatchObject({ type: "COMPLAINT", classifiedBy: "keywords" });
    const codes = result.errors.map((e) => e.code);
    expect(codes).toContain("CLASSIFIER_FALLBACK");
    expect(codes).toContain("MODEL_ERROR");
    const stored = await graph.persistence.store.search(namespaces.transcript(scope), { limit: 10 });
    expect(stored.map((i) => (i.value as { text: string }).text)).toEqual(["This is broken, I want a refund"]);
    const state = await graph.sessionState(scope);
    expect(state?.messages.map((m) => m.content)).toEqual(["This is broken, I want a refund"]);
  }, 20_000);

  it("as the service configures it (embeddings too), loses nothing when the provider fails: recall goes lexical", async () => {
    provider = await startProvider("error500");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-provider-"));
    const events: { event: string; what?: string }[] = [];
    const keep = (fields: Record<string, unknown>, event: string) => void events.push({ ...fields, event });
    const env = loadEnv({ OPENAI_BASE_URL: provider.baseUrl, OPENAI_TIMEOUT_MS: "500", SQLITE_PATH: path.join(dir, "m.db") });
    graph = await createMemoryGraph({ ...optionsFromEnv(env), retry: { retries: 0, baseDelayMs: 1 }, logger: { debug: keep, info: keep, warn: keep, error: keep } });
    const started = Date.now();
    const result = await graph.runTurn({ ...scope, message: "This is broken, I want a refund" });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.status).toBe("ERROR");
    expect(provider.requests.some((r) => r.path.endsWith("/embeddings"))).toBe(true);
    expect(events.filter((e) => e.event === "embeddings_fallback").map((e) => e.what)).toEqual(expect.arrayContaining(["documents", "query"]));
    const stored = await graph.persistence.store.search(namespaces.transcript(scope), { limit: 10 });
    expect(stored.map((i) => (i.value as { text: string }).text)).toEqual(["This is broken, I want a refund"]);
    await graph.close();
    graph = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  }, 20_000);
});
