import { countTokens, inSpan, metrics } from "../telemetry.js";
import { usageOf, type TurnResult } from "../graph/nodes/build-candidate.js";
import type { ModelUsage } from "../models/usage.js";

/**
 * One turn of `tenant` as a span (`turn`, parent of its graph nodes' spans) and its metrics: latency by status,
 * time to first token when streamed, the result's tokens by tenant, kind and node. Off, `run` is called as it is
 * (and `onToken` passed on untouched).
 */
export function tracedTurn(
  tenant: string,
  onToken: ((text: string) => void) | undefined,
  run: (onToken: ((text: string) => void) | undefined) => Promise<TurnResult>,
): Promise<TurnResult> {
  const instruments = metrics();
  if (!instruments) return run(onToken);
  const streamed = onToken !== undefined;
  const started = performance.now();
  let first = true;
  const timed = onToken
    ? (text: string) => {
        if (first) instruments.timeToFirstToken.record(performance.now() - started, { tenant });
        first = false;
        onToken(text);
      }
    : undefined;
  return inSpan("turn", { "memory_graph.tenant": tenant, "memory_graph.streamed": streamed }, async (span) => {
    const result = await run(timed);
    instruments.turnLatency.record(performance.now() - started, { status: result.status, streamed, replayed: result.replayed });
    if (!result.replayed) countTokens(result.usage.calls, tenant);
    span?.setAttributes({
      "memory_graph.status": result.status,
      "memory_graph.replayed": result.replayed,
      "memory_graph.degraded": result.degraded.join(","),
      "gen_ai.usage.input_tokens": result.usage.inputTokens,
      "gen_ai.usage.output_tokens": result.usage.outputTokens,
    });
    return result;
  });
}

/**
 * Tokens of a turn's model calls that ended after its result was handed over (a classification
 * the reply did not wait for, the embeddings of what it stored), counted node by node like the
 * result's own when metrics are on.
 */
export function countLateTokens(tenant: string, early: TurnResult, final: TurnResult): void {
  if (!metrics()) return;
  const before = totalsByNode(early.usage.calls);
  const late = [...totalsByNode(final.usage.calls)].map(([node, total]) => ({
    node,
    inputTokens: total.inputTokens - (before.get(node)?.inputTokens ?? 0),
    outputTokens: total.outputTokens - (before.get(node)?.outputTokens ?? 0),
  }));
  countTokens(late, tenant);
}

function totalsByNode(calls: readonly ModelUsage[]): Map<string, { inputTokens: number; outputTokens: number }> {
  const totals = new Map<string, { inputTokens: number; outputTokens: number }>();
  for (const call of calls) {
    const total = totals.get(call.node) ?? { inputTokens: 0, outputTokens: 0 };
    totals.set(call.node, { inputTokens: total.inputTokens + call.inputTokens, outputTokens: total.outputTokens + call.outputTokens });
  }
  return totals;
}

/** `result` with `calls` added to its usage. */
export function withCalls(result: TurnResult, calls: readonly ModelUsage[]): TurnResult {
  return calls.length === 0 ? result : { ...result, usage: usageOf([...result.usage.calls, ...calls]) };
}

/**
 * The model calls a turn makes outside its graph's own usage (the embeddings of recall's query
 * and of what it stores; see `withUsageSink`). `add` is the turn's sink: until `end()`, a call
 * joins the turn's results (`take()`: the calls so far, for a result handed over); from `end()`,
 * calls no result took are counted in the token metric under `tenant`, and so is every later one
 * (the embeddings of a summary made after the turn).
 */
export function turnUsageSink(tenant: string) {
  const calls: ModelUsage[] = [];
  let taken = 0;
  let open = true;
  return {
    add: (more: readonly ModelUsage[]): void => {
      if (open) calls.push(...more);
      else countTokens(more, tenant);
    },
    take: (): ModelUsage[] => {
      taken = calls.length;
      return [...calls];
    },
    end: (): void => {
      if (!open) return;
      open = false;
      countTokens(calls.slice(taken), tenant);
    },
  };
}
