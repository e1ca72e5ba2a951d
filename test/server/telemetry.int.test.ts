import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTcpProxy } from "../../bench/lib/tcp-proxy.js";
import { createMemoryGraph } from "../../src/app/create-memory-graph.js";
import { METRIC, startTelemetry } from "../../src/app/telemetry-setup.js";
import { createMemoryGraphClient } from "../../src/entries/client.js";
import { setLogLevel } from "../../src/logger.js";
import { createServer } from "../../src/server/create-server.js";
import { startProvider, type Provider } from "../support/openai-provider.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.js";
import { createTempDatabase } from "../support/postgres.js";
import { freePort, startService, waitFor } from "../support/service-process.js";

/**
 * OpenTelemetry, end to end: `npm start` with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a real
 * OTLP/HTTP receiver of this test, and the real OpenAI client against the local stand-in provider.
 */
describe("npm start with OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  let receiver: OtlpReceiver;
  let provider: Provider;
  let stdout = "";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-otel-"));

  beforeAll(async () => {
    [receiver, provider] = await Promise.all([startOtlpReceiver(), startProvider("ok")]);
    const port = await freePort();
    const service = startService({
      PORT: String(port),
      SQLITE_PATH: path.join(dir, "m.db"),
      OPENAI_API_KEY: "test",
      OPENAI_BASE_URL: provider.baseUrl,
      OPENAI_MODEL: "gpt-4o-mini",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "memory-graph-test",
      OTEL_METRIC_EXPORT_INTERVAL: "60000",
    });
    try {
      await waitFor(() => service.output().includes("server.listening") || service.child.exitCode !== null, 30_000);
      const client = createMemoryGraphClient({ baseUrl: `http://127.0.0.1:${port}`, retries: 0 });
      await client.createTurn({ user_id: "u1", session_id: "s1", message: "My cat is called Mali", message_id: "m-1" });
      for await (const event of client.streamTurn({ user_id: "u1", session_id: "s1", message: "What is my cat called?" })) if (event.event === "error") throw new Error(event.data.error.message);
      await client.importSessions("u1", [{ session_id: "old", started_at: "2024-01-01T00:00:00Z", messages: [{ id: "i1", role: "user", text: "I live in Chiang Mai" }] }]);
    } finally {
      // SIGTERM: the service drains, and sends what it still holds (spans, metrics) before it exits.
      service.child.kill("SIGTERM");
      await service.exited;
      stdout = service.stdout();
    }
  }, 90_000);

  afterAll(async () => {
    await Promise.all([receiver?.close(), provider?.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const spansOf = (traceId: string) => receiver.spans.filter((s) => s.traceId === traceId);
  const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan) => spans.filter((s) => s.parentSpanId === parent.spanId);

  it("exports one trace per request: the request, its turn, each graph node, the model call with its tokens, the store calls", () => {
    expect([...receiver.contentTypes].every((type) => type.startsWith("application/json"))).toBe(true);
    const request = receiver.spans.find((s) => s.name === "POST /v1/turns");
    expect(request).toBeDefined();
    expect(request!.parentSpanId).toBe("");
    expect(request!.attributes).toMatchObject({ "http.route": "/v1/turns", "http.response.status_code": 200, "memory_graph.tenant": "default" });
    const trace = spansOf(request!.traceId);
    const [turn] = childrenOf(trace, request!);
    expect(turn?.name).toBe("turn");
    expect(turn?.attributes).toMatchObject({ "memory_graph.status": "OK", "gen_ai.usage.input_tokens": expect.any(Number) });
    const nodes = childrenOf(trace, turn!).map((s) => s.name);
    expect(nodes).toEqual(expect.arrayContaining(["node ingest_prompt", "node recall", "node call_model", "node classify_event", "node build_candidate"]));
    // classify_event's span says which way the message was classified and why.
    expect(trace.find((s) => s.name === "node classify_event")?.attributes).toMatchObject({
      "memory_graph.classify.policy": "auto",
      "memory_graph.classify.by": "model",
      "memory_graph.classify.reason": "possession",
    });
    const callModel = trace.find((s) => s.name === "node call_model")!;
    const chat = childrenOf(trace, callModel).find((s) => s.name === "chat gpt-4o-mini");
    expect(chat?.attributes).toMatchObject({ "gen_ai.request.model": "gpt-4o-mini", "gen_ai.usage.input_tokens": 1, "gen_ai.usage.output_tokens": 1 });
    const recall = trace.find((s) => s.name === "node recall")!;
    expect(childrenOf(trace, recall).some((s) => s.name.startsWith("memory_store ") && s.attributes["db.operation.name"] !== undefined)).toBe(true);
    expect(trace.some((s) => s.name === "session_store getTuple")).toBe(true);
  });

  it("never carries message text in a span or metric attribute (attributes stay short)", () => {
    const values = [...receiver.spans.map((s) => s.attributes), ...receiver.metrics.flatMap((m) => m.points)]
      .flatMap((attributes) => Object.values(attributes))
      .filter((value): value is string => typeof value === "string");
    expect(values.length).toBeGreaterThan(0);
    for (const text of ["My cat is called Mali", "What is my cat called?", "I live in Chiang Mai"]) {
      expect(values.filter((value) => value.includes(text)), text).toEqual([]);
    }
    expect(Math.max(...values.map((value) => value.length))).toBeLessThan(200);
  });

  it("puts the request's trace id on every log line of the request", () => {
    const request = receiver.spans.find((s) => s.name === "POST /v1/turns")!;
    const lines = stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const ofRequest = lines.filter((line) => line.trace_id === request.traceId);
    expect(ofRequest.map((line) => line.event)).toEqual(expect.arrayContaining(["turn.usage", "http.request"]));
    const httpLine = lines.find((line) => line.event === "http.request" && line.route === "/v1/turns");
    expect(httpLine?.trace_id).toBe(request.traceId);
  });

  it("exports the metrics", () => {
    const names = new Set(receiver.metrics.map((m) => m.name));
    for (const name of [METRIC.turnLatency, METRIC.timeToFirstToken, METRIC.recallLatency, METRIC.vectorSearch, METRIC.tokens, METRIC.importMessages, METRIC.dependencyUp]) {
      expect(names, name).toContain(name);
    }
    const tokens = receiver.metrics.filter((m) => m.name === METRIC.tokens).flatMap((m) => m.points);
    // By what spent them: the reply, and the embeddings of what the turns recalled and stored.
    expect(tokens).toEqual(
      expect.arrayContaining([
        { tenant: "default", kind: "input", node: "call_model" },
        { tenant: "default", kind: "output", node: "call_model" },
        { tenant: "default", kind: "input", node: "embeddings" },
      ]),
    );
    const vector = receiver.metrics.filter((m) => m.name === METRIC.vectorSearch).flatMap((m) => m.points.map((p) => p.outcome));
    expect(vector.every((outcome) => ["used", "late", "failed", "off"].includes(outcome as string))).toBe(true);
  });
});

describe("/readyz and the dependency metric", () => {
  beforeAll(() => setLogLevel("silent"));
  afterAll(() => setLogLevel("info"));

  it("agree on which dependency is down, and a refused turn is counted", async () => {
    const receiver = await startOtlpReceiver();
    const database = await createTempDatabase();
    const proxy = await startTcpProxy({ host: "127.0.0.1", port: 5432 });
    const telemetry = await startTelemetry({ metricsUrl: `${receiver.url}/v1/metrics`, headers: {}, serviceName: "t", metricIntervalMs: 60_000 });
    const memory = await createMemoryGraph({
      backend: "postgres",
      databaseUrl: database.url.replace("127.0.0.1:5432", `127.0.0.1:${proxy.port}`),
      chatModel: null,
      classifierModel: null,
      summaryModel: null,
      storageTimeoutMs: 500,
      logger: false,
    });
    try {
      const app = createServer({ memory });
      const client = createMemoryGraphClient({ baseUrl: "http://memory.test", retries: 0, fetch: (request) => Promise.resolve(app.fetch(request)) });
      expect((await client.ready()).ready).toBe(true);
      proxy.cut();
      const ready = await client.ready();
      expect(ready.ready).toBe(false);
      const down = (ready.body as { dependencies: { name: string; ok: boolean }[] }).dependencies.filter((d) => !d.ok).map((d) => d.name);
      expect(down.length).toBeGreaterThan(0);
      await expect(client.createTurn({ user_id: "u1", session_id: "s1", message: "hello" })).rejects.toMatchObject({ status: 503 });
      await telemetry.flush();
      const gauge = receiver.metrics.filter((m) => m.name === METRIC.dependencyUp).at(-1)!;
      const downInMetrics = gauge.points.filter((_, i) => gauge.values[i] === 0).map((p) => p.dependency);
      expect(downInMetrics.sort()).toEqual(down.sort());
      expect(receiver.metrics.some((m) => m.name === METRIC.refusedTurns)).toBe(true);
    } finally {
      proxy.restore();
      await telemetry.shutdown();
      await memory.close().catch(() => undefined);
      await Promise.all([proxy.close(), receiver.close()]);
      await database.drop();
    }
  }, 60_000);
});
