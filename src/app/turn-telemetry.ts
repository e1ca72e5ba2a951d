import { inSpan, metrics } from "../telemetry.js";
import type { TurnResult } from "../graph/nodes/build-candidate.js";

/**
 * One turn of `tenant` as a span (`turn`, parent of its graph nodes' spans) and its metrics: latency by status,
 * time to first token when streamed, tokens by tenant and kind. Off, `run` is called as it is
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
    countTokens(instruments, tenant, result.usage.inputTokens, result.usage.outputTokens);
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
 * the reply did not wait for), counted like the result's own when metrics are on.
 */
export function countLateTokens(tenant: string, early: TurnResult, final: TurnResult): void {
  const instruments = metrics();
  if (!instruments) return;
  countTokens(instruments, tenant, final.usage.inputTokens - early.usage.inputTokens, final.usage.outputTokens - early.usage.outputTokens);
}

/** Adds a turn's tokens to the token metric, by tenant and kind. */
function countTokens(instruments: NonNullable<ReturnType<typeof metrics>>, tenant: string, input: number, output: number): void {
  instruments.tokens.add(input, { tenant, kind: "input" });
  instruments.tokens.add(output, { tenant, kind: "output" });
}
