import { AsyncLocalStorage } from "node:async_hooks";
import { countTokens } from "../telemetry.js";
import type { ModelUsage } from "./usage.js";

/** Takes the usage of model calls made inside the work it was given to (see `withUsageSink`). */
export type UsageSink = (calls: readonly ModelUsage[]) => void;

const sinks = new AsyncLocalStorage<UsageSink>();

/**
 * Runs `work` with `sink` taking the usage every call inside it reports (`reportUsage`), however
 * deep. A context rather than a parameter because embeddings are computed inside the store's
 * writes (a `BaseStore`'s `put` and `batch` take no caller): this is how the vector of a message a
 * turn stores is counted as the turn's. The turn runner already keeps one context of this kind per
 * turn (`withTurnOutcome`); LangChain keeps one per runnable. What one more context costs, measured
 * on Node 20 (where each context is copied onto every new promise): about 55 ns per awaited promise
 * with four contexts against three, and a turn makes about 2,600 promises (counted with an async
 * hook, SQLite, the OpenAI clients): about 0.1 ms of a 55 ms turn. Node 24's context frames copy
 * nothing per promise.
 */
export function withUsageSink<T>(sink: UsageSink, work: () => T): T {
  return sinks.run(sink, work);
}

/**
 * Hands `calls` to the sink of the work this runs in (`withUsageSink`); outside any (a run of the
 * graph alone, as in Studio; an import; a search), counts them in the token metric without a tenant.
 */
export function reportUsage(calls: readonly ModelUsage[]): void {
  if (calls.length === 0) return;
  const sink = sinks.getStore();
  if (sink) sink(calls);
  else countTokens(calls);
}
