import type { Attributes, Counter, Histogram, Span } from "@opentelemetry/api";

/**
 * Where our code reports traces and metrics. Off by default, and then nothing of OpenTelemetry is
 * loaded (the imports here are types only) and each hook is one null check: `inSpan` calls its
 * work directly, `metrics()` is null. `startTelemetry` (app/telemetry-setup.ts, loaded only when
 * an OTLP endpoint is configured) installs the runtime.
 */

/** The instruments every part of memory-graph records to (names in app/telemetry-setup.ts). */
export interface TelemetryInstruments {
  /** Milliseconds of one turn, by status and whether it streamed. */
  turnLatency: Histogram;
  /** Milliseconds from a streamed turn's start to its first token. */
  timeToFirstToken: Histogram;
  /** Milliseconds of recall. */
  recallLatency: Histogram;
  /** Recalls by how their vector search went (`used`, `late`, `failed`, `off`). */
  vectorSearch: Counter;
  /** Model tokens, by tenant, kind (`input`, `output`) and node (what made the call: see `countTokens`). */
  tokens: Counter;
  /** Turns answered without a dependency, by dependency. */
  degradedTurns: Counter;
  /** Turns refused for want of a dependency, by dependency. */
  refusedTurns: Counter;
  /** Messages per import request. */
  importMessages: Histogram;
}

/** A dependency's state, as the dependency gauge reads it (and /readyz answers it). */
export interface DependencyReading {
  name: string;
  engine: string;
  ok: boolean;
}

/** What an installed OpenTelemetry SDK gives our hooks. */
export interface TelemetryRuntime {
  /** Runs `work` in a new span, child of the active one, active while `work` runs. */
  startActiveSpan<T>(name: string, attributes: Attributes, work: (span: Span) => T): T;
  /** The trace and span ids of the active span, when one is. */
  activeIds(): { traceId: string; spanId: string } | undefined;
  /** Sets `attributes` on the active span, when one is. */
  annotateActive(attributes: Attributes): void;
  instruments: TelemetryInstruments;
  /** Reports `read()`'s dependencies on the dependency gauge until the returned function is called. */
  observeDependencies(read: () => readonly DependencyReading[]): () => void;
}

let runtime: TelemetryRuntime | null = null;

/** Installs (or with null, removes) the runtime every hook reports to. */
export function installTelemetry(next: TelemetryRuntime | null): void {
  runtime = next;
}

/** The instruments, or null while telemetry is off. */
export function metrics(): TelemetryInstruments | null {
  return runtime?.instruments ?? null;
}

/**
 * Runs `work` in a span named `name` (ended when `work` settles; an error marks it failed and is
 * rethrown). Off: `work(undefined)`, nothing else.
 */
export function inSpan<T>(name: string, attributes: Attributes, work: (span: Span | undefined) => Promise<T>): Promise<T> {
  if (!runtime) return work(undefined);
  return runtime.startActiveSpan(name, attributes, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: 2, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** `trace_id` and `span_id` of the active span, for log lines; undefined while off or outside a span. */
export function traceFields(): { trace_id: string; span_id: string } | undefined {
  const ids = runtime?.activeIds();
  return ids ? { trace_id: ids.traceId, span_id: ids.spanId } : undefined;
}

/** One model call's tokens as the token metric counts them (models/usage.ts `ModelUsage`). */
export interface CountedCall {
  node: string;
  inputTokens: number;
  outputTokens: number;
}

/**
 * Adds `calls` to the token metric, each under its `node` (call_model, classify_event, summarize,
 * session_title, embeddings), its kind (`input`, `output`) and `tenant` when one is known. Zero
 * counts are left out. Off: nothing.
 */
export function countTokens(calls: readonly CountedCall[], tenant?: string): void {
  const tokens = runtime?.instruments.tokens;
  if (!tokens) return;
  for (const { node, inputTokens, outputTokens } of calls) {
    const attributes = tenant === undefined ? { node } : { tenant, node };
    if (inputTokens > 0) tokens.add(inputTokens, { ...attributes, kind: "input" });
    if (outputTokens > 0) tokens.add(outputTokens, { ...attributes, kind: "output" });
  }
}

/** Sets `attributes` on the active span (a graph node's, in a node): what the node decided. Off: nothing. */
export function annotateSpan(attributes: Attributes): void {
  runtime?.annotateActive(attributes);
}

/** Puts `read()`'s dependencies on the dependency gauge; returns how to stop (a no-op while off). */
export function observeDependencies(read: () => readonly DependencyReading[]): () => void {
  return runtime?.observeDependencies(read) ?? (() => undefined);
}
