/**
 * `npm run bench:otel-cost`: what tracing and metrics cost per turn, every arm in one run.
 * - `off`: this code with telemetry off (the hooks find no runtime); `off_again`, the same once more
 *   (a graph of its own): `off_again_vs_off` is the noise of this run, what "within noise" means;
 * - `on_every_N` (one arm per --export-every cadence, default 5 and 25): the same with OpenTelemetry
 *   started (the service's SDK settings) and exporting spans and metrics over OTLP/HTTP to a local
 *   receiver (a child process, so its parsing is not counted), flushed after every N turns inside
 *   the measured block, so the export's own CPU is in the figure. Every 5 turns is far more often
 *   than a service exports; every 25 turns is what a busy service's BatchSpanProcessor does: with its
 *   default maxExportBatchSize of 512 spans it exports once 512 spans are queued, and a turn makes
 *   about 20 spans here (the service adds the HTTP request span and the model calls'), so one export
 *   per ~25 turns while turns come faster than one a second (slower, it exports every 5 s, and CPU is
 *   idle anyway). Metrics go with each flush: more often than the service's one a minute.
 * - `baseline` (with `--baseline-ref REF`): the code of REF (its src/ from `git archive`, sharing this
 *   tree's node_modules) in the same process: what `off` costs against no hooks at all — the
 *   "bench:prompt-cost CPU per turn unchanged with telemetry off" target, from the same run.
 * The graph is built as `npm start` builds it with no OpenAI settings (temp SQLite file, offline
 * models, hashed embedder), prompts as bench:prompt-cost makes them. The arms take turns in blocks of
 * --block turns (default 25) for --rounds rounds (default 10) after one warm-up round; CPU is
 * process.cpuUsage around each block. Prints JSON: per prompt size, each arm's median CPU ms per
 * turn, and each ratio as the median of the rounds' paired ratios (the arms of one round ran side
 * by side, so a neighbour's load hits both) beside the ratio of the medians.
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { MemoryGraph, MemoryGraphOptions } from "../src/app/create-memory-graph.js";
import { createMemoryGraph } from "../src/app/create-memory-graph.js";
import { optionsFromEnv } from "../src/app/options-from-env.js";
import { startTelemetry, type TelemetryHandle } from "../src/app/telemetry-setup.js";
import { flagsOrExit } from "../src/cli/args.js";
import { loadEnv } from "../src/config.js";
import { setLogLevel } from "../src/logger.js";
import { installTelemetry } from "../src/telemetry.js";
import { longPrompt } from "./lib/long-prompts.js";

const args = flagsOrExit(
  process.argv.slice(2),
  { rounds: { type: "string" }, block: { type: "string" }, "export-every": { type: "string" }, "baseline-ref": { type: "string" } },
  "usage: npm run bench:otel-cost -- [--rounds N] [--block N] [--export-every N,M] [--baseline-ref REF]",
);
const rounds = Number(args.rounds ?? 10);
const block = Number(args.block ?? 25);
const cadences = (args["export-every"] ?? "5,25").split(",").map(Number);
if (cadences.some((every) => !Number.isInteger(every) || every < 1 || block % every !== 0)) {
  throw new Error(`--export-every takes whole numbers that divide --block (${block})`);
}
const SIZES = [1_000, 8_000];
const round2 = (x: number) => Math.round(x * 100) / 100;
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

interface Arm {
  name: string;
  graph: MemoryGraph;
  /** Turns between exports; null: telemetry off. */
  exportEvery: number | null;
}

/** An OTLP/HTTP receiver in a child process: reads each export and answers 200. */
async function startReceiver(): Promise<{ url: string; stop: () => void }> {
  const code = `const s=require("node:http").createServer((q,r)=>{q.resume();q.on("end",()=>{r.writeHead(200,{"content-type":"application/json"});r.end("{}")})});s.listen(0,"127.0.0.1",()=>process.stdout.write(String(s.address().port)+"\\n"))`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve) => child.stdout.once("data", (chunk: Buffer) => resolve(chunk.toString().trim())));
  return { url: `http://127.0.0.1:${port}`, stop: () => void child.kill() };
}

/** The `createMemoryGraph` of another revision: its src/ extracted beside a link to this node_modules. */
async function baselineFactory(ref: string, dir: string): Promise<(options: MemoryGraphOptions) => Promise<MemoryGraph>> {
  const root = path.join(dir, "baseline");
  fs.mkdirSync(root);
  execFileSync("sh", ["-c", `git archive ${JSON.stringify(ref)} src package.json | tar -x -C ${JSON.stringify(root)}`]);
  fs.symlinkSync(path.resolve("node_modules"), path.join(root, "node_modules"));
  const module = (await import(path.join(root, "src/app/create-memory-graph.ts"))) as { createMemoryGraph: (options: MemoryGraphOptions) => Promise<MemoryGraph> };
  return module.createMemoryGraph;
}

/** CPU ms per turn of one block of `arm`, its exports included. */
async function runBlock(arm: Arm, telemetry: TelemetryHandle, size: number, session: string, firstTurn: number): Promise<number> {
  installTelemetry(arm.exportEvery ? telemetry.runtime : null);
  const before = process.cpuUsage();
  for (let i = 0; i < block; i += 1) {
    await arm.graph.runTurn({ tenantId: "bench", userId: `u-${size}`, sessionId: session, message: longPrompt(size, firstTurn + i) });
    if (arm.exportEvery && (i + 1) % arm.exportEvery === 0) await telemetry.flush();
  }
  const used = process.cpuUsage(before);
  installTelemetry(null);
  return (used.user + used.system) / 1000 / block;
}

/** Every round: each size, each arm (in an order that turns round), one block. CPU per turn by size, arm, round. */
async function measure(arms: readonly Arm[], telemetry: TelemetryHandle): Promise<Record<string, Record<string, number[]>>> {
  const perTurn: Record<string, Record<string, number[]>> = {};
  let turn = 1;
  for (let r = 0; r <= rounds; r += 1) {
    const order = arms.map((_, i) => arms[(i + r) % arms.length]!);
    for (const size of SIZES) {
      for (const arm of order) {
        const cpu = await runBlock(arm, telemetry, size, `s-${size}-${r}-${arm.name}`, turn);
        if (r > 0) ((perTurn[`${size / 1000}kb`] ??= {})[arm.name] ??= []).push(cpu);
      }
      turn += block;
    }
  }
  return perTurn;
}

/** Medians per arm and, for `a` against `b`, the median of the rounds' paired ratios and the ratio of the medians. */
function summarize(byArm: Record<string, number[]>, pairs: readonly [string, string][]) {
  const medians = Object.fromEntries(Object.entries(byArm).map(([arm, xs]) => [arm, round2(median(xs))]));
  const ratios = Object.fromEntries(
    pairs
      .filter(([a, b]) => byArm[a] && byArm[b])
      .map(([a, b]) => {
        const paired = byArm[a]!.map((x, i) => x / byArm[b]![i]!);
        return [`${a}_vs_${b}`, { paired_median: round2(median(paired)), of_medians: round2(medians[a]! / medians[b]!) }];
      }),
  );
  return { cpu_ms_per_turn_median: medians, ratios, rounds: Object.fromEntries(Object.entries(byArm).map(([arm, xs]) => [arm, xs.map(round2)])) };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-bench-otel-"));
const receiver = await startReceiver();
try {
  setLogLevel("silent");
  const optionsFor = (name: string): MemoryGraphOptions => ({
    ...optionsFromEnv(loadEnv({ ...process.env, MEMORY_BACKEND: "sqlite", SQLITE_PATH: path.join(dir, `${name}.db`), OPENAI_API_KEY: "", OPENAI_BASE_URL: "" })),
    logger: false,
  });
  // The service's settings: the SDK's batch span processor defaults, metrics every 60 s (OTEL_METRIC_EXPORT_INTERVAL's default).
  const telemetry = await startTelemetry({ tracesUrl: `${receiver.url}/v1/traces`, metricsUrl: `${receiver.url}/v1/metrics`, headers: {}, serviceName: "bench", metricIntervalMs: 60_000 });
  installTelemetry(null);
  const arms: Arm[] = [
    { name: "off", graph: await createMemoryGraph(optionsFor("off")), exportEvery: null },
    { name: "off_again", graph: await createMemoryGraph(optionsFor("off-again")), exportEvery: null },
  ];
  for (const every of cadences) arms.push({ name: `on_every_${every}`, graph: await createMemoryGraph(optionsFor(`on-${every}`)), exportEvery: every });
  if (args["baseline-ref"]) arms.unshift({ name: "baseline", graph: await (await baselineFactory(args["baseline-ref"], dir))(optionsFor("baseline")), exportEvery: null });

  const perTurn = await measure(arms, telemetry);
  for (const arm of arms) await arm.graph.close();
  await telemetry.shutdown();

  const pairs: [string, string][] = [...cadences.map((every): [string, string] => [`on_every_${every}`, "off"]), ["off", "baseline"], ["off_again", "off"]];
  const report = {
    cores: os.availableParallelism(),
    rounds,
    turns_per_block: block,
    export_every_turns: cadences,
    baseline_ref: args["baseline-ref"] ?? null,
    sizes: Object.fromEntries(Object.entries(perTurn).map(([size, byArm]) => [size, summarize(byArm, pairs)])),
    targets: { on_vs_off_max: 1.1, off_vs_baseline: "within noise" },
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  receiver.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
