/**
 * `npm run bench:latency`: what a user waits for with a real model's pacing. A local
 * OpenAI-compatible stand-in (300 ms to the first token, then 20 tokens 15 ms apart; a non-streamed
 * answer, such as the classification, after its own tokens at that pace, a tool call's arguments
 * made from the JSON schema it is sent; embeddings after 0 ms, then 150 ms) serves both sides of
 * one run:
 * - ours: the memory-graph service (SQLite, the model and embeddings from the stand-in) over its
 *   streaming route, POST /v1/turns/stream;
 * - bare: a LangGraph chatbot of one model node with the official SqliteSaver, streamMode "messages".
 * The same turns on one session each, interleaved (ours, bare, ours, …), after two warm-up turns.
 * Time to first token and full turn, p50/p95/max, their ratios, the slowest turns, and how the
 * turns that made a summary compare with the median. A summary (a non-streamed text answer) is
 * --summary-tokens long (default 120, paced like the rest). Every reply is the same text unless
 * --distinct-replies (then each names its message: a reply's embedding is not one computed before).
 * Prints JSON. Flags: --turns --ttft --tokens --gap --summary-tokens --distinct-replies.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { AIMessageChunk, HumanMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { flagsOrExit } from "../src/cli/args.js";
import { startPacedProvider, type Pacing } from "./lib/paced-provider.js";
import { freePort } from "./lib/free-port.js";

const args = flagsOrExit(
  process.argv.slice(2),
  { turns: { type: "string" }, ttft: { type: "string" }, tokens: { type: "string" }, gap: { type: "string" }, "summary-tokens": { type: "string" }, "distinct-replies": { type: "boolean" } },
  "usage: npm run bench:latency -- [--turns 40] [--ttft 300] [--tokens 20] [--gap 15] [--summary-tokens 120] [--distinct-replies]",
);
const TURNS = Number(args.turns ?? 40);
const SUMMARY_INTERVAL = 10;
const TARGETS = { ratio_ttft_p95: 1.1, ratio_turn_p95: 1.15, summary_turn_vs_median: 1.15 };

interface Timing {
  ttft: number;
  turn: number;
}

const round = (x: number) => Math.round(x * 10) / 10;
const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : 0);
function stats(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
  return { p50: round(at(0.5)), p95: round(at(0.95)), max: round(sorted.at(-1) ?? 0) };
}

async function startService(baseUrl: string, dir: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/start.ts"], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      API_KEYS: "",
      MEMORY_BACKEND: "sqlite",
      SQLITE_PATH: path.join(dir, "ours.db"),
      OPENAI_API_KEY: "bench",
      OPENAI_BASE_URL: baseUrl,
      SUMMARY_INTERVAL: String(SUMMARY_INTERVAL),
      LOG_LEVEL: "error",
      WEB_CONCURRENCY: "1",
    },
    // Its log lines (errors only) go to this process's stderr, beside the report on stdout.
    stdio: ["ignore", 2, "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (!(await fetch(`${url}/healthz`).then((r) => r.ok).catch(() => false))) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error("the service did not start");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { child, url };
}

/** One turn over the streaming route: first `token` event, then the `result` event. */
async function oursTurn(url: string, session: string, message: string): Promise<Timing> {
  const started = performance.now();
  const response = await fetch(`${url}/v1/turns/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user_id: "bench", session_id: session, message }),
  });
  if (!response.ok || !response.body) throw new Error(`turn answered ${response.status}`);
  const decoder = new TextDecoder();
  let text = "";
  let ttft = 0;
  for await (const chunk of response.body) {
    text += decoder.decode(chunk as Uint8Array, { stream: true });
    if (!ttft && text.includes("event: token")) ttft = performance.now() - started;
    if (text.includes("event: result")) break;
    if (text.includes("event: error")) throw new Error(`turn failed: ${text.slice(-300)}`);
  }
  return { ttft, turn: performance.now() - started };
}

function bareChatbot(baseUrl: string, dir: string) {
  const model = new ChatOpenAI({ apiKey: "bench", model: "paced", streaming: true, configuration: { baseURL: baseUrl }, maxRetries: 0 });
  const graph = new StateGraph(MessagesAnnotation)
    .addNode("model", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addEdge("__start__", "model")
    .compile({ checkpointer: SqliteSaver.fromConnString(path.join(dir, "bare.db")) });
  return async (session: string, message: string): Promise<Timing> => {
    const started = performance.now();
    let ttft = 0;
    const stream = await graph.stream({ messages: [new HumanMessage(message)] }, { configurable: { thread_id: session }, streamMode: "messages" });
    for await (const [chunk] of stream) {
      if (!ttft && AIMessageChunk.isInstance(chunk) && chunk.text) ttft = performance.now() - started;
    }
    return { ttft, turn: performance.now() - started };
  };
}

async function run(embeddingsMs: number, pacing: Omit<Pacing, "embeddingsMs">) {
  const provider = await startPacedProvider({ ...pacing, embeddingsMs });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-bench-latency-"));
  const service = await startService(provider.baseUrl, dir);
  const bare = bareChatbot(provider.baseUrl, dir);
  try {
    const text = (i: number) => `Turn ${i}: my order ${1000 + i} arrived late and the box was damaged, what can you do?`;
    for (let i = 0; i < 2; i += 1) {
      await oursTurn(service.url, "warmup", text(i));
      await bare("warmup", text(i));
    }
    const ours: Timing[] = [];
    const theirs: Timing[] = [];
    for (let i = 0; i < TURNS; i += 1) {
      ours.push(await oursTurn(service.url, "s1", text(i)));
      theirs.push(await bare("s1", text(i)));
    }
    const oursTurnStats = stats(ours.map((t) => t.turn));
    // How long the stand-in's own calls took, by kind (both sides' replies; our side calls).
    const callKinds = ["reply", "tool_call", "text", "embeddings"] as const;
    const providerMs = Object.fromEntries(
      callKinds.map((kind) => [kind, stats(provider.calls.filter((call) => call.kind === kind).map((call) => call.ms))]),
    );
    const bareStats = { ttft_ms: stats(theirs.map((t) => t.ttft)), turn_ms: stats(theirs.map((t) => t.turn)) };
    const oursStats = { ttft_ms: stats(ours.map((t) => t.ttft)), turn_ms: oursTurnStats };
    // Turn i (0-based) completes pair i + 1: every SUMMARY_INTERVAL-th pair makes a summary.
    const summaryTurns = ours.flatMap((t, i) => ((i + 1) % SUMMARY_INTERVAL === 0 ? [{ turn: i, turn_ms: round(t.turn) }] : []));
    return {
      embeddings_ms: embeddingsMs,
      ours: oursStats,
      bare: bareStats,
      ratio_ttft_p95: ratio(oursStats.ttft_ms.p95, bareStats.ttft_ms.p95),
      ratio_turn_p95: ratio(oursStats.turn_ms.p95, bareStats.turn_ms.p95),
      // The reply stream, the classification (a tool call), the summary (text), embeddings.
      provider_call_ms: providerMs,
      summary_turns: summaryTurns,
      summary_turn_vs_median: ratio(Math.max(0, ...summaryTurns.map((t) => t.turn_ms)), oursTurnStats.p50),
      slowest_turns: ours
        .map((t, i) => ({ turn: i, ttft_ms: round(t.ttft), turn_ms: round(t.turn), summary_due: (i + 1) % SUMMARY_INTERVAL === 0 }))
        .sort((a, b) => b.turn_ms - a.turn_ms)
        .slice(0, 3),
    };
  } finally {
    service.child.kill("SIGTERM");
    await new Promise((resolve) => service.child.once("exit", resolve));
    await provider.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const pacing = {
  ttftMs: Number(args.ttft ?? 300),
  tokens: Number(args.tokens ?? 20),
  tokenGapMs: Number(args.gap ?? 15),
  textTokens: Number(args["summary-tokens"] ?? 120),
  dimensions: 1536,
  distinctReplies: args["distinct-replies"] === true,
};
const runs = [];
for (const embeddingsMs of [0, 150]) runs.push(await run(embeddingsMs, pacing));
console.log(JSON.stringify({ turns: TURNS, pacing, targets: TARGETS, runs }, null, 2));
