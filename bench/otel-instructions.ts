/**
 * `npm run bench:otel-instructions`: what tracing and metrics cost per turn in instructions
 * executed (valgrind's callgrind counts them, whatever else the machine runs), so the target
 * (telemetry off: CPU per turn unchanged; on, exporting to a local receiver: at most +10 %) can be
 * shown on a shared machine where bench:otel-cost's CPU time has noise as large as the target.
 * - The counted process is bench/lib/otel-instructions-turns.ts, bundled once by esbuild (so no
 *   TypeScript loader runs under valgrind), run by the normal JIT `node` under
 *   `valgrind --tool=callgrind --smc-check=all-non-file`: the graph as `npm start` builds it offline
 *   (temp SQLite file, offline models, hashed embedder), bench:prompt-cost's seeded prompts
 *   (--size characters, default 1000), ids from a counter.
 * - Per turn without client requests: the counted process runs --warmup W turns (default 50), then
 *   calls os.getPriority() (callgrind `--zero-before=uv_os_getpriority` zeroes every count), runs
 *   --turns N more (default 25), then calls os.uptime() (`--dump-before=uv_uptime` writes the counts
 *   out): that dump / N is the arm's instructions per turn, start-up and JIT warm-up left out.
 * - Arms: `off` (the code as the service runs it with no OTLP endpoint: the hooks find no runtime,
 *   nothing of OpenTelemetry is loaded); `on_every_K` per --export-every cadence (default 5 and 25):
 *   OpenTelemetry started with the service's SDK settings, exporting spans and metrics over OTLP/HTTP
 *   to a receiver in this (uncounted) process, flushed after every K turns, as bench:otel-cost
 *   documents (every 25 turns is what a busy service's batch span processor does; every 5 is far more
 *   often). The SDK's own timers (span batch 5 s, metrics 60 s) are set long in the counted process,
 *   since valgrind's ~50× slowdown would otherwise add timed exports a native run does not make.
 * - JIT tiering and GC timing make counts vary (6–10 % between identical runs of 25 turns: a major
 *   GC or a batch of optimizing compiles falls in one window and not another): each arm runs --reps
 *   times (default 3);
 *   the spread of `off`'s reps is this run's noise, what "unchanged with telemetry off" is measured
 *   against (a build without the hooks differs from `off` by a null check per hook call, about 30 a
 *   turn, far below that noise). --jitless adds a cross-check of every arm under `node --jitless`.
 * Prints JSON: each arm's instructions per turn (median and every rep), its spread, and on/off
 * ratios (of medians, and the worst pairing of reps); beside them, from the dump's per-function
 * self costs, what V8's optimizing compilers (still at work on a warm process, on their own
 * threads) and its garbage collector took per turn, and the ratio of what remains. --keep DIR keeps
 * the callgrind files (callgrind_annotate reads them; after the zero its inclusive figures and
 * `summary` are off, its self costs right); --from DIR reads a kept run again (same flags). Two
 * counted processes run at a time (--jobs).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { build } from "esbuild";
import { flagsOrExit } from "../src/cli/args.js";
import type { TurnsJob } from "./lib/otel-instructions-turns.js";

const args = flagsOrExit(
  process.argv.slice(2),
  {
    warmup: { type: "string" },
    turns: { type: "string" },
    reps: { type: "string" },
    size: { type: "string" },
    "export-every": { type: "string" },
    jobs: { type: "string" },
    jitless: { type: "boolean" },
    "v8-flags": { type: "string" },
    keep: { type: "string" },
    from: { type: "string" },
  },
  "usage: npm run bench:otel-instructions -- [--warmup W] [--turns N] [--reps R] [--size CHARS] [--export-every K,L] [--jobs J] [--jitless] [--v8-flags='--predictable --single-threaded'] [--keep DIR] [--from DIR]",
);
const warmup = Number(args.warmup ?? 50);
const turns = Number(args.turns ?? 25);
const reps = Number(args.reps ?? 3);
const size = Number(args.size ?? 1000);
const jobs = Number(args.jobs ?? 2);
// V8 flags for every counted process: `--predictable --single-threaded` makes V8's compiling and
// garbage collection run on the main thread at fixed points, so that the same turns count the same.
const v8Flags = (args["v8-flags"] ?? "").split(" ").filter((flag) => flag.startsWith("--"));
const cadences = (args["export-every"] ?? "5,25").split(",").map(Number);
for (const [name, value] of Object.entries({ warmup, turns, reps, size, jobs })) {
  if (!Number.isInteger(value) || value < (name === "warmup" ? 0 : 1)) throw new Error(`--${name} takes a whole number (got ${String(value)})`);
}
if (cadences.some((every) => !Number.isInteger(every) || every < 1 || warmup % every !== 0 || turns % every !== 0)) {
  throw new Error(`--export-every takes whole numbers that divide --warmup (${warmup}) and --turns (${turns})`);
}

interface Arm {
  name: string;
  exportEvery: number | null;
  jitless: boolean;
}
interface Run {
  arm: Arm;
  rep: number;
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** The counted program as one ES module beside a link to this tree's node_modules. */
async function bundle(dir: string): Promise<string> {
  const outfile = path.join(dir, "turns.mjs");
  await build({ entryPoints: ["bench/lib/otel-instructions-turns.ts"], bundle: true, platform: "node", format: "esm", packages: "external", outfile, logLevel: "error" });
  fs.symlinkSync(path.resolve("node_modules"), path.join(dir, "node_modules"));
  return outfile;
}

/** An OTLP/HTTP receiver (this process, not counted): reads each export and answers 200. */
async function startReceiver(): Promise<{ url: string; received: () => number; stop: () => Promise<void> }> {
  let count = 0;
  const server = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      count += 1;
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, received: () => count, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Functions of V8's optimizing compilers and of its garbage collector, by name. */
const KINDS = {
  optimizing_compiler: /v8::internal::(compiler|maglev)::|v8::internal::(OptimizingCompileDispatcher|TurbofanCompilationJob)/,
  gc: /v8::internal::(Scavenger|Scavenge|Marking|ConcurrentMarking|MarkCompact|Sweeper|Heap|Evacuat|MemoryChunk|RememberedSet|SlotSet|MinorMarkCompact|MainMarkingVisitor|PagedSpace|NewSpace|LargeObjectSpace|ArrayBufferSweeper)|heap::base::/,
};
type Count = { total: number } & Record<keyof typeof KINDS, number>;

/**
 * The instructions of one callgrind dump, from its self-cost lines (the `summary:` line and a
 * call's inclusive cost are wrong after `--zero-before`: a call still running, such as a thread's
 * start, keeps what it had counted before the zero), and of them the compilers' and the GC's.
 */
function countOf(file: string): Count {
  const names = new Map<string, string>();
  const count: Count = { total: 0, optimizing_compiler: 0, gc: 0 };
  let kind: keyof typeof KINDS | null = null;
  let afterCalls = false;
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    // Names are compressed: `(id) name` the first time, in a fn= or cfn= line, then `(id)`.
    const fn = /^(c?)fn=\((\d+)\)(?: (.*))?$/.exec(line);
    if (fn) {
      if (fn[3] !== undefined) names.set(fn[2]!, fn[3]);
      const name = names.get(fn[2]!) ?? "";
      if (!fn[1]) kind = (Object.keys(KINDS) as (keyof typeof KINDS)[]).find((k) => KINDS[k].test(name)) ?? null;
    } else if (line.startsWith("calls=")) {
      afterCalls = true;
    } else if (/^[0-9+*-]/.test(line)) {
      // A cost line: position then the Ir count; the one after `calls=` is that call's inclusive cost.
      if (!afterCalls) {
        const ir = Number(line.slice(line.lastIndexOf(" ") + 1));
        count.total += ir;
        if (kind) count[kind] += ir;
      }
      afterCalls = false;
    }
  }
  return count;
}

/** The one dump `run` wrote at the end mark, in `dir`. */
function dumpOf(run: Run, dir: string): string {
  const out = `${run.arm.name}.rep${run.rep}.callgrind`;
  const dumps = fs.readdirSync(dir).filter((name) => name.startsWith(`${out}.`) && /^desc: Trigger: --dump-before=/m.test(fs.readFileSync(path.join(dir, name), "utf8")));
  if (dumps.length !== 1) throw new Error(`${run.arm.name}: ${dumps.length} dumps at the end mark (expected one)`);
  return path.join(dir, dumps[0]!);
}

/** Instructions of the measured turns of `run` (every thread, between the marks), and of them the compilers' and GC's. */
async function count(run: Run, program: string, receiver: string, dir: string): Promise<Count> {
  const out = path.join(dir, `${run.arm.name}.rep${run.rep}.callgrind`);
  const job: TurnsJob = { warmup, turns, size, exportEvery: run.arm.exportEvery, receiver };
  const node = [process.execPath, ...v8Flags, ...(run.arm.jitless ? ["--jitless"] : []), program, JSON.stringify(job)];
  const marks = ["--zero-before=uv_os_getpriority", "--dump-before=uv_uptime"];
  const child = spawn("valgrind", ["--tool=callgrind", "--smc-check=all-non-file", ...marks, `--callgrind-out-file=${out}`, ...node], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-4000)));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`${run.arm.name} exited ${String(code)}:\n${stderr}`);
  return countOf(dumpOf(run, dir));
}

/** Runs `work` over `items`, `limit` at a time, results in the items' order. */
async function pool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Per arm: instructions per turn of each rep, their median and spread. */
function perArm(arms: readonly Arm[], runs: readonly Run[], counts: readonly Count[]) {
  const of = (arm: Arm) => counts.filter((_, i) => runs[i]!.arm === arm);
  return Object.fromEntries(
    arms.map((arm) => {
      const each = of(arm).map((c) => Math.round(c.total / turns));
      const mid = median(each);
      const kinds = Object.fromEntries(Object.keys(KINDS).map((kind) => [`${kind}_median`, Math.round(median(of(arm).map((c) => c[kind as keyof typeof KINDS] / turns)))]));
      const rest = of(arm).map((c) => Math.round((c.total - c.optimizing_compiler - c.gc) / turns));
      return [arm.name, { per_turn_median: mid, per_turn_reps: each, spread: round4((Math.max(...each) - Math.min(...each)) / mid), ...kinds, rest_median: median(rest), rest_reps: rest }];
    }),
  );
}

/** Each `on_*` arm against the `off` arm of the same node flags: ratio of medians, and the worst pairing of reps. */
function ratios(arms: readonly Arm[], figures: ReturnType<typeof perArm>) {
  const result: Record<string, { of_medians: number; max_rep_vs_min_rep: number; without_compiler_and_gc: number }> = {};
  for (const arm of arms.filter((a) => a.exportEvery !== null)) {
    const off = arms.find((a) => a.exportEvery === null && a.jitless === arm.jitless)!;
    const on = figures[arm.name]!;
    const base = figures[off.name]!;
    result[`${arm.name}_vs_${off.name}`] = {
      of_medians: round4(on.per_turn_median / base.per_turn_median),
      max_rep_vs_min_rep: round4(Math.max(...on.per_turn_reps) / Math.min(...base.per_turn_reps)),
      without_compiler_and_gc: round4(on.rest_median / base.rest_median),
    };
  }
  return result;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-bench-otel-instr-"));
const receiver = await startReceiver();
try {
  const program = await bundle(dir);
  const arms: Arm[] = [];
  for (const jitless of args.jitless ? [false, true] : [false]) {
    const suffix = jitless ? "_jitless" : "";
    arms.push({ name: `off${suffix}`, exportEvery: null, jitless });
    for (const every of cadences) arms.push({ name: `on_every_${every}${suffix}`, exportEvery: every, jitless });
  }
  const runs: Run[] = [];
  for (let rep = 0; rep < reps; rep += 1) for (const arm of arms) runs.push({ arm, rep });
  const started = Date.now();
  const from = args.from;
  const counts = from ? runs.map((run) => countOf(dumpOf(run, from))) : await pool(runs, jobs, (run) => count(run, program, receiver.url, dir));
  const figures = perArm(arms, runs, counts);
  const report = {
    measure: "instructions of the measured turns (valgrind --tool=callgrind --smc-check=all-non-file, every thread of the node process)",
    v8_flags: v8Flags,
    node: process.version,
    prompt_chars: size,
    warmup_turns: warmup,
    measured_turns: turns,
    reps,
    export_every_turns: cadences,
    otlp_requests_received: receiver.received(),
    instructions_per_turn: figures,
    ratios: ratios(arms, figures),
    noise: Object.fromEntries(arms.filter((a) => a.exportEvery === null).map((a) => [a.name, figures[a.name]!.spread])),
    targets: { on_vs_off_max: 1.1, off: "unchanged: a build without hooks differs by ~30 null checks a turn, far below the off reps' spread" },
    wall_seconds: Math.round((Date.now() - started) / 1000),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  if (args.keep) fs.cpSync(dir, args.keep, { recursive: true, filter: (source) => !source.endsWith("node_modules") });
} finally {
  await receiver.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
