import type { Meter } from "@opentelemetry/api";
import type { TelemetryOptions } from "../config.js";
import { messageOf } from "../errors.js";
import { log } from "../logger.js";
import { installTelemetry, type DependencyReading, type TelemetryInstruments, type TelemetryRuntime } from "../telemetry.js";

/** A running OpenTelemetry SDK: `flush()` exports what is pending, `shutdown()` does and stops. */
export interface TelemetryHandle {
  /** What was installed (a benchmark takes it out with `installTelemetry(null)` and puts it back). */
  runtime: TelemetryRuntime;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** The metric names (OpenTelemetry style: dotted, unit in the metadata). */
export const METRIC = {
  turnLatency: "memory_graph.turn.duration",
  timeToFirstToken: "memory_graph.turn.time_to_first_token",
  recallLatency: "memory_graph.recall.duration",
  vectorSearch: "memory_graph.recall.vector_search",
  tokens: "memory_graph.model.tokens",
  degradedTurns: "memory_graph.turns.degraded",
  refusedTurns: "memory_graph.turns.refused",
  importMessages: "memory_graph.import.messages",
  dependencyUp: "memory_graph.dependency.up",
} as const;

/**
 * Starts OpenTelemetry: spans exported in batches and metrics every `metricIntervalMs`, both over
 * OTLP/HTTP (JSON) to the configured endpoints, and installs the runtime our hooks (src/telemetry.ts)
 * report to. The SDK's modules are loaded here, on first start only. A context manager is
 * registered globally unless the host registered one (a host with its own SDK keeps it).
 * `spanExportDelayMs` is the batch span processor's timer (the SDK's 5 s by default); a benchmark
 * that runs under valgrind sets it long, so exports happen at its flushes only.
 */
export async function startTelemetry(options: TelemetryOptions, { spanExportDelayMs }: { spanExportDelayMs?: number } = {}): Promise<TelemetryHandle> {
  const [api, { AsyncLocalStorageContextManager }, { TracerProvider, BatchSpanProcessor }, metricsSdk, { resourceFromAttributes }, traceExporter, metricExporter] =
    await Promise.all([
      import("@opentelemetry/api"),
      import("@opentelemetry/context-async-hooks"),
      import("@opentelemetry/sdk-trace"),
      import("@opentelemetry/sdk-metrics"),
      import("@opentelemetry/resources"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/exporter-metrics-otlp-http"),
    ]);
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const resource = resourceFromAttributes({ "service.name": options.serviceName });
  const { headers } = options;
  const tracerProvider = new TracerProvider({
    resource,
    spanProcessors: options.tracesUrl ? [new BatchSpanProcessor({ exporter: new traceExporter.OTLPTraceExporter({ url: options.tracesUrl, headers }), scheduledDelayMillis: spanExportDelayMs })] : [],
  });
  const meterProvider = new metricsSdk.MeterProvider({
    resource,
    readers: options.metricsUrl
      ? [
          new metricsSdk.PeriodicExportingMetricReader({
            exporter: new metricExporter.OTLPMetricExporter({ url: options.metricsUrl, headers }),
            exportIntervalMillis: options.metricIntervalMs,
            exportTimeoutMillis: Math.min(30_000, options.metricIntervalMs),
          }),
        ]
      : [],
  });
  const tracer = tracerProvider.getTracer("memory-graph");
  const meter = meterProvider.getMeter("memory-graph");
  const instruments = createInstruments(meter);
  // The dependency gauge reads what /readyz reads (DependencyHealth): 1 up, 0 down, per dependency.
  const sources = new Set<() => readonly DependencyReading[]>();
  meter.createObservableGauge(METRIC.dependencyUp, { description: "1 while a storage dependency answers, 0 while it is down (as /readyz reports it)" }).addCallback((result) => {
    for (const read of sources) for (const dependency of read()) result.observe(dependency.ok ? 1 : 0, { dependency: dependency.name, engine: dependency.engine });
  });

  const runtime: TelemetryRuntime = {
    startActiveSpan: (name, attributes, work) => tracer.startActiveSpan(name, { attributes }, work),
    activeIds: () => {
      const context = api.trace.getActiveSpan()?.spanContext();
      return context ? { traceId: context.traceId, spanId: context.spanId } : undefined;
    },
    annotateActive: (attributes) => void api.trace.getActiveSpan()?.setAttributes(attributes),
    instruments,
    observeDependencies: (read) => {
      sources.add(read);
      return () => void sources.delete(read);
    },
  };
  installTelemetry(runtime);
  log.info("telemetry.started", { traces: options.tracesUrl ?? null, metrics: options.metricsUrl ?? null, service: options.serviceName });

  const flush = async () => {
    await Promise.all([tracerProvider.forceFlush(), meterProvider.forceFlush()]);
  };
  return {
    runtime,
    flush,
    shutdown: async () => {
      try {
        await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
      } catch (error) {
        log.warn("telemetry.shutdown_failed", { error: messageOf(error) });
      } finally {
        installTelemetry(null);
      }
    },
  };
}

/** The histograms and counters our hooks record to (names in `METRIC`). */
function createInstruments(meter: Meter): TelemetryInstruments {
  const ms = { unit: "ms" };
  return {
    turnLatency: meter.createHistogram(METRIC.turnLatency, { ...ms, description: "Time of one turn, to its reply" }),
    timeToFirstToken: meter.createHistogram(METRIC.timeToFirstToken, { ...ms, description: "Time from a streamed turn's start to its first token" }),
    recallLatency: meter.createHistogram(METRIC.recallLatency, { ...ms, description: "Time of recall" }),
    vectorSearch: meter.createCounter(METRIC.vectorSearch, { description: "Recalls by vector_search outcome: used, late (lexical only), failed, off" }),
    tokens: meter.createCounter(METRIC.tokens, { unit: "{token}", description: "Model tokens by tenant, kind (input, output) and node (call_model, classify_event, summarize, session_title, embeddings)" }),
    degradedTurns: meter.createCounter(METRIC.degradedTurns, { description: "Turns answered without a storage dependency" }),
    refusedTurns: meter.createCounter(METRIC.refusedTurns, { description: "Turns refused for want of a storage dependency" }),
    importMessages: meter.createHistogram(METRIC.importMessages, { unit: "{message}", description: "Messages per import request" }),
  };
}
