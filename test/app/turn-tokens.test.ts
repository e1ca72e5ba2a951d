import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMemoryGraph, type MemoryGraph } from "../../src/app/create-memory-graph.js";
import { METRIC, startTelemetry, type TelemetryHandle } from "../../src/app/telemetry-setup.js";
import { setLogLevel } from "../../src/logger.js";
import { CALL, type ModelUsage } from "../../src/models/usage.js";
import { NODE } from "../../src/graph/state/node-names.js";
import { embeddingTokensOf, startProvider, type Provider } from "../support/openai-provider.js";
import { startOtlpReceiver, type OtlpReceiver } from "../support/otlp-receiver.js";

/**
 * The model tokens a turn spends, embeddings included: the real OpenAI clients (chat and
 * embeddings) against the local stand-in, which reports usage as providers do; the token metric
 * through the real OpenTelemetry SDK and OTLP exporter to a local receiver.
 */
const scope = { tenantId: "acme", userId: "u1", sessionId: "s1" };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-turn-tokens-"));
let provider: Provider | undefined;
let graph: MemoryGraph | undefined;
let receiver: OtlpReceiver | undefined;
let telemetry: TelemetryHandle | undefined;

afterEach(async () => {
  await graph?.close();
  await telemetry?.shutdown();
  await Promise.all([provider?.close(), receiver?.close()]);
  graph = telemetry = provider = receiver = undefined;
});
beforeAll(() => setLogLevel("silent"));
afterAll(() => {
  setLogLevel("info");
  fs.rmSync(dir, { recursive: true, force: true });
});

async function open(name: string, options: Parameters<typeof createMemoryGraph>[0] = {}) {
  provider = await startProvider("ok");
  graph = await createMemoryGraph({ backend: "sqlite", sqlitePath: path.join(dir, `${name}.db`), openai: { baseUrl: provider.baseUrl, model: "gpt-4o-mini", timeoutMs: 5000 }, logger: false, ...options });
  return { provider, graph };
}

const embeddingsOf = (calls: readonly ModelUsage[]) => calls.filter((call) => call.node === CALL.embeddings);
const inputOf = (calls: readonly ModelUsage[]) => calls.reduce((sum, call) => sum + call.inputTokens, 0);
/** The embeddings tokens the stand-in reported, over every request it answered. */
const providerEmbeddingTokens = (provider: Provider) =>
  provider.requests.filter((r) => r.path.endsWith("/embeddings")).reduce((sum, r) => sum + embeddingTokensOf(([] as string[]).concat(r.body.input as string | string[])), 0);

describe("a turn's model tokens", () => {
  it("count the embeddings of what the turn recalls and stores among its usage calls, as the provider reported them", async () => {
    const { graph, provider } = await open("usage");
    const turn = { ...scope, message: "My cat is called Mali. What did I tell you about my cat?", messageId: "m-1" };
    const result = await graph.runTurn(turn);
    expect(result.status).toBe("OK");
    const embeddings = embeddingsOf(result.usage.calls);
    expect(embeddings.length, JSON.stringify(result.usage)).toBeGreaterThan(0);
    expect(embeddings.every((call) => call.inputTokens > 0 && call.outputTokens === 0)).toBe(true);
    expect(result.usage.calls.map((call) => call.node)).toContain(NODE.callModel);
    expect(result.usage.inputTokens).toBe(inputOf(result.usage.calls));
    // The stored result, which a retry replays, has every embeddings call the turn made, to the token.
    await graph.settled();
    const replay = await graph.runTurn(turn);
    expect(replay.replayed).toBe(true);
    expect(inputOf(embeddingsOf(replay.usage.calls))).toBe(providerEmbeddingTokens(provider));
  });

  it("count each embeddings call for the turn that made it, with turns of two tenants side by side", async () => {
    const { graph, provider } = await open("side-by-side");
    // Each message names something the other does not (Bruno, 4503): every text embedded for a turn carries it.
    const turns = [
      { ...scope, tenantId: "acme", message: "My dog Bruno is four years old. What did I tell you about Bruno?", messageId: "m-acme", mark: "Bruno" },
      { ...scope, tenantId: "globex", message: "Order 4503 arrived late and damaged; what did I say about order 4503 last week?", messageId: "m-globex", mark: "4503" },
    ];
    await Promise.all(turns.map(({ mark: _, ...turn }) => graph.runTurn(turn)));
    await graph.settled();
    for (const { mark, ...turn } of turns) {
      const stored = await graph.runTurn(turn);
      const own = provider.requests.filter((r) => r.path.endsWith("/embeddings") && JSON.stringify(r.body.input).includes(mark));
      const expected = own.reduce((sum, r) => sum + embeddingTokensOf(([] as string[]).concat(r.body.input as string | string[])), 0);
      expect(expected, turn.tenantId).toBeGreaterThan(0);
      expect(inputOf(embeddingsOf(stored.usage.calls)), turn.tenantId).toBe(expected);
    }
  });

  it("go to the token metric by tenant, kind and node, the upkeep's summary and title included", async () => {
    receiver = await startOtlpReceiver();
    telemetry = await startTelemetry({ metricsUrl: `${receiver.url}/v1/metrics`, headers: {}, serviceName: "t", metricIntervalMs: 60_000 });
    const { graph, provider } = await open("metric", { sessionTitles: true, limits: { summaryInterval: 1 } });
    await graph.runTurn({ ...scope, message: "My sister Priya moved to Pune, what do you remember about her?" });
    await graph.settled();
    await telemetry.flush();
    const tokens = receiver.metrics.filter((m) => m.name === METRIC.tokens);
    const points = tokens.flatMap((m) => m.points.map((attributes, i) => ({ attributes, value: m.values[i] ?? 0 })));
    for (const node of [NODE.callModel, NODE.summarize, CALL.sessionTitle, CALL.embeddings]) {
      expect(points.map((p) => p.attributes), node).toContainEqual({ tenant: "acme", kind: "input", node });
    }
    // Every embeddings token the provider reported is counted once: the turn's, and those of the summary stored after it.
    const embedded = points.filter((p) => p.attributes.node === CALL.embeddings).reduce((sum, p) => sum + p.value, 0);
    expect(embedded).toBe(providerEmbeddingTokens(provider));
  });
});
