/**
 * `npm run bench:turn-phases`: where a turn's time goes, against the stand-in provider of
 * bench:latency (300 ms to the first token, 20 tokens 15 ms apart, a non-streamed answer after
 * its own tokens; embeddings after 0 ms, then 150 ms). The memory graph runs in this process on
 * SQLite; each turn is streamed with LangGraph's "debug" and "messages" modes, and the median
 * time (ms after the turn began) at which each node started and finished, the first reply token
 * came, and the run ended, is printed as JSON. Flags: --turns (default 25, after 3 warm-up turns).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { AIMessageChunk } from "@langchain/core/messages";
import { createMemoryGraph } from "../src/app/create-memory-graph.js";
import { flagsOrExit } from "../src/cli/args.js";
import { setLogLevel } from "../src/logger.js";
import { startPacedProvider } from "./lib/paced-provider.js";

const args = flagsOrExit(process.argv.slice(2), { turns: { type: "string" } }, "usage: npm run bench:turn-phases -- [--turns 25]");
const TURNS = Number(args.turns ?? 25);
const WARMUP = 3;
setLogLevel("silent");

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function phases(embeddingsMs: number): Promise<Record<string, number>> {
  const provider = await startPacedProvider({ ttftMs: 300, tokens: 20, tokenGapMs: 15, embeddingsMs, dimensions: 1536 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-turn-phases-"));
  const graph = await createMemoryGraph({
    sqlitePath: path.join(dir, "phases.db"),
    openai: { apiKey: "bench", baseUrl: provider.baseUrl, model: "paced", timeoutMs: 30_000 },
    // No summary inside the measured turns: summaries run after the result, outside a run's phases.
    limits: { summaryInterval: 1_000 },
    logger: false,
  });
  const seen: Record<string, number[]> = {};
  try {
    for (let i = 0; i < WARMUP + TURNS; i++) {
      const started = performance.now();
      const marks: Record<string, number> = {};
      const message = `Turn ${i}: my order ${1000 + i} arrived late and the box was damaged, what can you do?`;
      const stream = await graph.app.stream(
        { tenantId: "bench", userId: "u1", sessionId: "s1", message },
        { configurable: { thread_id: "bench/u1/s1" }, durability: "exit", streamMode: ["debug", "messages"] },
      );
      for await (const [mode, payload] of stream) {
        const at = Math.round((performance.now() - started) * 10) / 10;
        if (mode === "messages") {
          if (AIMessageChunk.isInstance((payload as [unknown, unknown])[0])) marks.first_token ??= at;
          continue;
        }
        const event = payload as { type: string; payload: { name?: string } };
        if (event.type === "task" || event.type === "task_result") marks[`${event.payload.name ?? "?"}.${event.type === "task" ? "start" : "end"}`] ??= at;
      }
      marks.run_end = Math.round((performance.now() - started) * 10) / 10;
      if (i >= WARMUP) for (const [name, at] of Object.entries(marks)) (seen[name] ??= []).push(at);
    }
  } finally {
    await graph.close();
    await provider.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const medians = Object.entries(seen).map(([name, values]) => [name, median(values)] as const);
  return Object.fromEntries(medians.sort((a, b) => a[1] - b[1]));
}

const runs = [];
for (const embeddingsMs of [0, 150]) runs.push({ embeddings_ms: embeddingsMs, median_ms_after_start: await phases(embeddingsMs) });
console.log(JSON.stringify({ turns: TURNS, runs }, null, 2));
