/**
 * `npm run bench:otel-cost`: what tracing and metrics cost per turn, all arms in one run.
 * - `off`: this code with telemetry off (the hooks find no runtime);
 * - `on`: the same, with OpenTelemetry started and exporting spans and metrics over OTLP/HTTP to a
 *   local receiver (a child process, so its parsing is not counted); each block ends with a flush,
 *   counted in the block, so the export's own CPU is in the figure;
 * - `baseline` (with `--baseline-ref REF`, e.g. main): the code of REF (its src/ from `git archive`,
 *   sharing this tree's node_modules) in the same process: what `off` costs against no hooks at all.
 * The graph is built as `npm start` builds it with no OpenAI settings (temp SQLite file, offline
 * models, hashed embedder), prompts as bench:prompt-cost makes them. The arms take turns in blocks
 * of --block turns (default 5), --rounds rounds (default 8) after one warm-up round; CPU is
 * process.cpuUsage around each block. Prints JSON: per prompt size, each arm's median CPU ms per
 * turn over the rounds, and the ratios on/off and off/baseline (targets: ≤ 1.10 and within noise).
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { MemoryGraph, MemoryGraphOptions } from "../src/app/create-memory-graph.js";
import { createMemoryGraph } from "../src/app/create-memory-graph.js";
import { optionsFromEnv } from "../src/app/options-from-env.js";
import { startTelemetry } from "../src/app/telemetry-setup.js";
import { flagsOrExit } from "../src/cli/args.js";
import { loadEnv } from "../src/config.js";
import { setLogLevel } from "../src/logger.js";
import { installTelemetry } from "../src/telemetry.js";
import { longPrompt } from "./lib/long-prompts.js";

const args = flagsOrExit(
  process.argv.slice(2),
  { rounds: { type: "string" }, block: { type: "string" }, "baseline-ref": { type: "string" } },
  "usage: npm run bench:otel-cost -- [--rounds N] [--block N] [--baseline-ref REF]",
);
const rounds = Number(args.rounds ?? 8);
const block = Number(args.block ?? 5);
const SIZES = [1_000, 8_000];
const round2 = (x: number) => Math.round(x * 100) / 100;
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

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

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-bench-otel-"));
const receiver = await startReceiver();
try {
  setLogLevel("silent");
  const optionsFor = (name: string): MemoryGraphOptions => ({
    ...optionsFromEnv(loadEnv({ ...process.env, MEMORY_BACKEND: "sqlite", SQLITE_PATH: path.join(dir, `${name}.db`), OPENAI_API_KEY: "", OPENAI_BASE_URL: "" })),
    logger: false,
  });
  const telemetry = await startTelemetry({ tracesUrl: `${receiver.url}/v1/traces`, metricsUrl: `${receiver.url}/v1/metrics`, headers: {}, serviceName: "bench", metricIntervalMs: 1000 });
  installTelemetry(null);
  const arms: { name: string; graph: MemoryGraph; on: boolean }[] = [
    { name: "off", graph: await createMemoryGraph(optionsFor("off")), on: false },
    { name: "on", graph: await createMemoryGraph(optionsFor("on")), on: true },
  ];
  if (args["baseline-ref"]) arms.unshift({ name: "baseline", graph: await (await baselineFactory(args["baseline-ref"], dir))(optionsFor("baseline")), on: false });

  const perTurn: Record<string, Record<string, number[]>> = {};
  let turn = 0;
  for (let r = 0; r <= rounds; r += 1) {
    // The order of the arms turns round, so that none always follows the same one.
    const order = arms.map((_, i) => arms[(i + r) % arms.length]!);
    for (const size of SIZES) {
      for (const arm of order) {
        installTelemetry(arm.on ? telemetry.runtime : null);
        const before = process.cpuUsage();
        for (let i = 0; i < block; i += 1) {
          await arm.graph.runTurn({ tenantId: "bench", userId: `u-${size}`, sessionId: `s-${size}-${r}`, message: longPrompt(size, turn + i + 1) });
        }
        if (arm.on) await telemetry.flush();
        const used = process.cpuUsage(before);
        installTelemetry(null);
        if (r > 0) ((perTurn[`${size / 1000}kb`] ??= {})[arm.name] ??= []).push((used.user + used.system) / 1000 / block);
      }
      turn += block;
    }
  }
  for (const arm of arms) await arm.graph.close();
  await telemetry.shutdown();

  const sizes = Object.fromEntries(
    Object.entries(perTurn).map(([size, byArm]) => {
      const med = Object.fromEntries(Object.entries(byArm).map(([arm, xs]) => [arm, round2(median(xs))]));
      const ratio = (a: string, b: string) => (med[a] && med[b] ? round2(med[a] / med[b]) : null);
      return [size, { cpu_ms_per_turn_median: med, on_vs_off: ratio("on", "off"), off_vs_baseline: ratio("off", "baseline"), rounds: byArm }];
    }),
  );
  const report = {
    cores: os.availableParallelism(),
    rounds,
    turns_per_block: block,
    baseline_ref: args["baseline-ref"] ?? null,
    sizes: Object.fromEntries(Object.entries(sizes).map(([k, v]) => [k, { ...v, rounds: Object.fromEntries(Object.entries(v.rounds).map(([a, xs]) => [a, xs.map(round2)])) }])),
    targets: { on_vs_off_max: 1.1, off_vs_baseline: "within noise" },
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  receiver.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
