/**
 * `npm run bench:prompt-cost`: what long prompts cost (issue "No single request may stall the
 * service"). Prompts are mixed English sentences, about one in six in Thai (`longPrompt`).
 * - `cpu_ms_per_turn`: CPU (process.cpuUsage around `runTurn`) of the memory graph as the service
 *   builds it with no OpenAI settings (temp SQLite file, offline models, hashed embedder), at 1 KB,
 *   8 KB and 32 KB prompts: for each size a session of its own, --warmup turns (default 3) then
 *   --turns measured turns (default 9); the median, the slowest and every turn's figure.
 * - `healthz_under_load`: the service (`src/cli/start.ts` through tsx, one worker, SQLite, offline)
 *   while one client sends 32 KB prompts back to back for --seconds (default 10): /healthz latency
 *   (p50, p99, max; one probe every 25 ms) and the turns the client got answered; beside it, /healthz
 *   on the idle service for 2 s before, to show what the machine itself adds (CPU steal, neighbours).
 * Prints JSON, with the targets beside the measured values (not asserted anywhere).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createMemoryGraph } from "../src/app/create-memory-graph.js";
import { optionsFromEnv } from "../src/app/options-from-env.js";
import { flagsOrExit } from "../src/cli/args.js";
import { loadEnv } from "../src/config.js";
import { setLogLevel } from "../src/logger.js";
import { longPrompt } from "./lib/long-prompts.js";
import { freePort } from "./lib/free-port.js";

const args = flagsOrExit(process.argv.slice(2), { warmup: { type: "string" }, turns: { type: "string" }, seconds: { type: "string" } }, "usage: npm run bench:prompt-cost -- [--warmup N] [--turns N] [--seconds S]");
const warmup = Number(args.warmup ?? 3);
const turns = Number(args.turns ?? 9);
const seconds = Number(args.seconds ?? 10);
const SIZES = [1_000, 8_000, 32_000];
const TARGETS = { cpu_ms_per_32kb_turn: 30, healthz_p99_ms: 50 };

const round = (x: number) => Math.round(x * 10) / 10;
function percentile(sorted: readonly number[], p: number): number {
  return round(sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0);
}

async function cpuPerTurn(dir: string) {
  const env = loadEnv({ ...process.env, MEMORY_BACKEND: "sqlite", SQLITE_PATH: path.join(dir, "cpu.db"), OPENAI_API_KEY: "", OPENAI_BASE_URL: "", LOG_LEVEL: "error" });
  setLogLevel(env.LOG_LEVEL);
  const graph = await createMemoryGraph(optionsFromEnv(env));
  const report: Record<string, { median: number; max: number; turns: number[] }> = {};
  try {
    for (const size of SIZES) {
      const figures: number[] = [];
      for (let turn = 0; turn < warmup + turns; turn += 1) {
        const input = { tenantId: "bench", userId: `user-${size}`, sessionId: `session-${size}`, message: longPrompt(size, turn + 1) };
        const before = process.cpuUsage();
        await graph.runTurn(input);
        const used = process.cpuUsage(before);
        if (turn >= warmup) figures.push(round((used.user + used.system) / 1000));
      }
      const sorted = [...figures].sort((a, b) => a - b);
      report[`${size / 1000}kb`] = { median: percentile(sorted, 50), max: sorted[sorted.length - 1] ?? 0, turns: figures };
    }
  } finally {
    await graph.close();
  }
  return report;
}

/** /healthz latencies (sorted) of one probe every 25 ms for `forSeconds`. */
async function probeHealthz(base: string, forSeconds: number): Promise<number[]> {
  const probes: number[] = [];
  const until = performance.now() + forSeconds * 1000;
  while (performance.now() < until) {
    const started = performance.now();
    await (await fetch(`${base}/healthz`)).arrayBuffer();
    probes.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return probes.sort((a, b) => a - b);
}

async function healthzUnderLoad(dir: string) {
  const port = await freePort();
  const child = spawn(path.resolve("node_modules/.bin/tsx"), ["src/cli/start.ts"], {
    env: { ...process.env, PORT: String(port), SQLITE_PATH: path.join(dir, "service.db"), LOG_LEVEL: "error", OPENAI_API_KEY: "", OPENAI_BASE_URL: "", API_KEYS: "", WEB_CONCURRENCY: "1" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const base = `http://127.0.0.1:${port}`;
  try {
    for (let i = 0; i < 120 && !(await fetch(`${base}/readyz`).then((r) => r.ok).catch(() => false)); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // /healthz alone first: what the machine gives when no turn runs (a floor for the figures under load).
    const idle = await probeHealthz(base, 2);
    const bodies = Array.from({ length: 20 }, (_, i) => JSON.stringify({ user_id: "load", session_id: "load", message: longPrompt(32_000, 100 + i) }));
    const turnMs: number[] = [];
    let failed = 0;
    let stop = false;
    const client = (async () => {
      for (let i = 0; !stop; i += 1) {
        const started = performance.now();
        const res = await fetch(`${base}/v1/turns`, { method: "POST", headers: { "content-type": "application/json" }, body: bodies[i % bodies.length] });
        await res.arrayBuffer();
        if (res.ok) turnMs.push(performance.now() - started);
        else failed += 1;
      }
    })();
    // Let the client's first turns (and the service's JIT) pass before probing.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const probes = await probeHealthz(base, seconds);
    stop = true;
    await client;
    turnMs.sort((a, b) => a - b);
    return {
      seconds,
      probes: probes.length,
      healthz_ms: { p50: percentile(probes, 50), p99: percentile(probes, 99), max: round(probes[probes.length - 1] ?? 0) },
      healthz_idle_ms: { p50: percentile(idle, 50), p99: percentile(idle, 99) },
      turns_answered: turnMs.length,
      turns_failed: failed,
      turn_ms: { p50: percentile(turnMs, 50), max: round(turnMs[turnMs.length - 1] ?? 0) },
    };
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-bench-prompt-cost-"));
try {
  const cpu = await cpuPerTurn(dir);
  const healthz = await healthzUnderLoad(dir);
  const report = {
    prompts: "mixed English sentences, about one in six Thai",
    cores: os.availableParallelism(),
    cpu_ms_per_turn: cpu,
    healthz_under_load: healthz,
    targets: TARGETS,
    measured: { cpu_ms_per_32kb_turn: cpu["32kb"]?.median ?? null, healthz_p99_ms: healthz.healthz_ms.p99 },
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
