/**
 * `npm run bench:classify-call -- [--calls 150] [--rounds 6]`: CPU per classification of one
 * entity-rich message, both ways of asking a ChatOpenAI model (a local OpenAI-compatible stand-in
 * answering at once, bench/lib/paced-provider.ts, in this process: its CPU counts on both sides):
 * - `bound_tool`: `classifyWithModel` as the classifier calls it (the tool bound to the model, the
 *   call's arguments read and checked by us);
 * - `structured_chain`: the same request through LangChain's `withStructuredOutput(…, { includeRaw:
 *   true, method: "functionCalling" })`, as the classifier asked before (its output-parser chain:
 *   a sequence, a map, an assign, a fallback and their lambdas, each a run of its own).
 * Interleaved round by round (the order alternating); prints JSON: each round's ms per call, the
 * medians and the median of the paired ratios bound_tool / structured_chain.
 */
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { ChatOpenAI } from "@langchain/openai";
import { flagsOrExit } from "../src/cli/args.js";
import { createChatModel } from "../src/models/chat-model.js";
import { classifyWithModel } from "../src/models/structured.js";
import { modelEventSchema } from "../src/rules/event-schema.js";
import { percentile, round } from "./lib/metrics.js";
import { startPacedProvider } from "./lib/paced-provider.js";

const args = flagsOrExit(process.argv.slice(2), { calls: { type: "string" }, rounds: { type: "string" } }, "usage: npm run bench:classify-call -- [--calls N] [--rounds N]");
const CALLS = Number(args.calls ?? 150);
const ROUNDS = Number(args.rounds ?? 6);
const MESSAGE = "Usko 500 add karo, and my sister Priya moved to Pune last week";

const provider = await startPacedProvider({ ttftMs: 0, tokens: 20, tokenGapMs: 0, embeddingsMs: 0, dimensions: 1536 });
const model = createChatModel({ baseUrl: provider.baseUrl, model: "gpt-4o-mini", timeoutMs: 5_000, maxRetries: 0 }) as ChatOpenAI;
const chain = model
  .withStructuredOutput(modelEventSchema, { name: "classified_event", includeRaw: true, method: "functionCalling" })
  .withConfig({ tags: ["langsmith:nostream"] });
const prompt = [new SystemMessage("You classify one user message."), new HumanMessage(`Context: {}\n\nMessage: ${MESSAGE}`)];

const ways: Record<string, () => Promise<unknown>> = {
  bound_tool: () => classifyWithModel(model, MESSAGE),
  structured_chain: () => chain.invoke(prompt),
};

async function msPerCall(call: () => Promise<unknown>, calls: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i += 1) await call();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / calls;
}

const median = (values: readonly number[]) => percentile(values, 50);
const ms = (value: number) => round(value, 3);

// Warm-up: the first few hundred calls of each still get faster as V8 compiles them.
for (const call of Object.values(ways)) await msPerCall(call, 300);
const runs: Record<string, number[]> = { bound_tool: [], structured_chain: [] };
for (let round = 0; round < ROUNDS; round += 1) {
  const order = round % 2 === 0 ? ["bound_tool", "structured_chain"] : ["structured_chain", "bound_tool"];
  for (const name of order) runs[name]!.push(await msPerCall(ways[name]!, CALLS));
}
const ratios = runs.bound_tool!.map((ms, i) => ms / runs.structured_chain![i]!);
console.log(
  JSON.stringify(
    {
      calls_per_round: CALLS,
      ms_per_call: { bound_tool: runs.bound_tool!.map(ms), structured_chain: runs.structured_chain!.map(ms) },
      median_ms: { bound_tool: ms(median(runs.bound_tool!)), structured_chain: ms(median(runs.structured_chain!)) },
      bound_over_chain: round(median(ratios), 3),
    },
    null,
    2,
  ),
);
await provider.close();
