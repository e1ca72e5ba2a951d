/**
 * `npm run bench:cold-start`: start to first answer, as a Cloud Run instance started by a waiting
 * request sees it. Each run spawns a service process and sends it one turn (POST /v1/turns) as
 * soon as its port accepts a connection (tried every 5 ms, as Cloud Run's start-up probe does
 * before it lets the waiting request in); it times the listening and the answer from the spawn,
 * and reads the process's RSS and the CPU time it has used (user + system) at that moment (/proc):
 * CPU time to the answer varies less than the clock when other work shares the machine. The sides run alternately (the order
 * rotated every run), each SQLite run on a new file:
 * - `ours`: the memory-graph service as the image runs it (`dist/service/start.js`: `npm run build`
 *   compiles it and bundles our modules into a few files, its packages left outside, as the bare
 *   chatbot is below), SQLite;
 * - `ours_modules`: the same compiled service one file per module (`dist/cli/start.js`), SQLite;
 * - `ours_postgres`: the same on Postgres (--postgres URL, default the local test server;
 *   `--postgres ""` leaves it out), one new database for all runs, its tables made by a start
 *   before the measured ones (an instance starts on a database in use);
 * - `bare`: the bare LangGraph chatbot (bench/lib/bare-chatbot-server.ts: one model node, the
 *   official SqliteSaver, ChatOpenAI, Hono), compiled to one file with esbuild, its packages left
 *   outside (loaded from node_modules as ours are);
 * - `baseline` with --baseline <checkout>: another commit's compiled service (`dist/cli/start.js`),
 *   SQLite (a `git worktree add /tmp/base <rev>` with a `node_modules` link; built there first).
 * Every model call goes to one OpenAI-compatible stand-in in this process that answers at once.
 * --compile-cache (Node 22.1+): every side starts with its own NODE_COMPILE_CACHE folder, filled
 * by one start and turn of that side that is not measured (as the image's cache is filled at build).
 * Every process runs bench/lib/first-answer-preload.mjs (`node --import`), which reads its CPU time
 * (`process.cpuUsage()`, every thread) when the answer to its first POST has gone out.
 * --instructions N: each SQLite side (bare, ours, baseline) started N more times under valgrind's
 * callgrind (bench/lib/counted-start.ts; two at a time, --runs 0 for these alone): the instructions
 * executed from the spawn to listening and on to the first answer, the same whatever the machine's
 * load (a start takes a few minutes so); beside them, counted only, `floor_six_nodes`: the bare
 * chatbot with our graph's six nodes and classification call (BARE_SHAPE=six_nodes). With
 * --compile-cache each counted side, the floor included, reads its own cache, filled as above (a
 * counted start is killed at its answer and writes none); to count as the image runs, run on its
 * Node with its NODE_OPTIONS (docs/operations.md, "Cold start").
 * Prints JSON: per side the runs, median and range of start-to-answer and of start-to-listen (the
 * first accepted connection), median RSS and CPU time, and each side's medians (answer time, CPU
 * time, instructions) over the bare chatbot's (target ≤ 1.3 for `ours`).
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import pg from "pg";
import { flagsOrExit } from "../src/cli/args.js";
import { COUNTED_ENV, type Counted, FIRST_ANSWER_PRELOAD, callgrindPrefix, firstAnswerOf, inPool, instructionsOf } from "./lib/counted-start.js";
import { freePort } from "./lib/free-port.js";
import { startPacedProvider } from "./lib/paced-provider.js";
import { ratio, tempDir } from "./lib/services.js";

const args = flagsOrExit(
  process.argv.slice(2),
  { runs: { type: "string" }, postgres: { type: "string" }, baseline: { type: "string" }, message: { type: "string" }, "compile-cache": { type: "boolean" }, instructions: { type: "string" } },
  'usage: npm run bench:cold-start -- [--runs 7] [--postgres postgres://postgres@127.0.0.1:5432/test | --postgres ""] [--baseline <checkout>] [--message "..."] [--compile-cache] [--instructions 3]',
);
const runs = Number(args.runs ?? 7);
const postgresUrl = args.postgres ?? "postgres://postgres@127.0.0.1:5432/test";
const message = args.message ?? "Hi! What does the family plan cost per month?";
const TARGET = 1.3;
const compileCache = args["compile-cache"] === true;
const countedRuns = Number(args.instructions ?? 0);

/** How a side is started: the entry, the directory it runs in, and its environment. */
interface Side {
  name: string;
  entry: string;
  cwd: string;
  env: (dir: string, run: number) => Record<string, string>;
}

/** One start: ms from the spawn to the first accepted connection and to the answer's last byte; RSS and CPU time then. */
interface Start {
  listen_ms: number;
  answer_ms: number;
  rss_mb: number;
  cpu_ms: number;
  /** Under callgrind (--instructions): the instructions executed to listening and from then to the answer. */
  instructions?: Counted;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round1 = (x: number) => Math.round(x * 10) / 10;
const ratio3 = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length === 0 ? 0 : s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

function rssMb(pid: number): number {
  const line = fs.readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"));
  return round1(Number(/(\d+)/.exec(line ?? "")?.[1] ?? 0) / 1024);
}

/** Whether 127.0.0.1:`port` accepts a connection (closed at once). */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** `side`'s compile cache folder under `dir` (--compile-cache), written when its process exits. */
const cacheDir = (side: Side, dir: string) => path.join(dir, `compile-cache-${side.name}`);

/**
 * Spawns `side` (under callgrind when `counted` names the file of its counts), sends the turn as
 * soon as the port takes it, and stops the process once the preload has read its figures.
 */
async function coldStart(side: Side, dir: string, run: number, counted?: string): Promise<Start> {
  const port = await freePort();
  const cache = compileCache ? { NODE_COMPILE_CACHE: cacheDir(side, dir) } : {};
  const answerFile = path.join(dir, `${side.name}-${run}-${counted ? "counted" : "timed"}.answer.json`);
  const command = [...(counted ? callgrindPrefix(counted) : []), process.execPath, "--import", FIRST_ANSWER_PRELOAD, side.entry];
  const limitMs = counted ? 1_800_000 : 60_000;
  const started = performance.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd: side.cwd,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", API_KEYS: "", LOG_LEVEL: "error", WEB_CONCURRENCY: "1", ...side.env(dir, run), ...cache, FIRST_ANSWER_FILE: answerFile, ...(counted ? COUNTED_ENV : {}) },
    stdio: ["ignore", 2, "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    // The port takes a connection (Cloud Run's start-up probe), then the waiting request goes in.
    while (!(await accepts(port))) {
      if (child.exitCode !== null) throw new Error(`${side.name} exited with ${child.exitCode}`);
      if (performance.now() - started > limitMs) throw new Error(`${side.name} did not listen within ${limitMs / 1000} s`);
      await sleep(5);
    }
    const listen = performance.now() - started;
    const response = await fetch(`http://127.0.0.1:${port}/v1/turns`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user_id: `user-${run}`, session_id: `s-${run}`, message }),
      signal: AbortSignal.timeout(limitMs),
    });
    const body = await response.text();
    if (!response.ok) throw new Error(`${side.name} answered ${response.status}: ${body.slice(0, 300)}`);
    const answer = performance.now() - started;
    const rss = rssMb(child.pid!);
    const { cpu_ms } = await firstAnswerOf(answerFile, limitMs);
    return { listen_ms: round1(listen), answer_ms: round1(answer), rss_mb: rss, cpu_ms: round1(cpu_ms), ...(counted ? { instructions: instructionsOf(counted) } : {}) };
  } finally {
    // Under callgrind its counts are written at the answer; a kill spares the minutes of shutting down.
    child.kill(counted ? "SIGKILL" : "SIGTERM");
    await exited;
  }
}

/** A new database on the Postgres server of `url`, dropped by the returned function. */
async function tempDatabase(url: string, name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  return { url: url.replace(/\/[^/]*$/, `/${name}`), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** The service as the image runs it (package.json's `build`: compiled, then bundled into dist/service). */
const SERVICE = "dist/service/start.js";

/** The bare chatbot as one compiled file in `dir` (its packages from this checkout's node_modules, through a link). */
function compileBare(dir: string): string {
  fs.symlinkSync(path.resolve("node_modules"), path.join(dir, "node_modules"), "dir");
  const out = path.join(dir, "bare-chatbot-server.mjs");
  execFileSync(path.resolve("node_modules/.bin/esbuild"), ["bench/lib/bare-chatbot-server.ts", "--bundle", "--platform=node", "--format=esm", "--packages=external", `--outfile=${out}`, "--log-level=warning"], { stdio: "inherit" });
  return out;
}

function summary(starts: readonly Start[]) {
  const answers = starts.map((s) => s.answer_ms);
  return {
    answer_ms: { median: round1(median(answers)), min: Math.min(...answers), max: Math.max(...answers) },
    listen_ms: { median: round1(median(starts.map((s) => s.listen_ms))) },
    rss_mb: { median: round1(median(starts.map((s) => s.rss_mb))) },
    cpu_ms: { median: round1(median(starts.map((s) => s.cpu_ms))) },
    runs: starts,
  };
}

/**
 * --instructions: each side started `countedRuns` times under callgrind, two starts at a time (the
 * counts do not depend on what else runs); per side the counts (spawn to listening, listening to
 * the answer, and their sum), medians and spread, and the medians over the bare chatbot's.
 */
async function countInstructions(sides: readonly Side[], dir: string) {
  const jobs = sides.flatMap((side) => Array.from({ length: countedRuns }, (_, run) => async () => ({ side: side.name, start: await coldStart(side, dir, 1000 + run, path.join(dir, `callgrind-${side.name}-${run}.out`)) })));
  const done = await inPool(jobs, 2);
  const bySide = Object.fromEntries(
    sides.map((side) => {
      const counts = done.filter((d) => d.side === side.name).map((d) => d.start.instructions!);
      const totals = counts.map((c) => c.to_listen + c.listen_to_answer);
      const medians = { total: median(totals), to_listen: median(counts.map((c) => c.to_listen)), listen_to_answer: median(counts.map((c) => c.listen_to_answer)) };
      return [side.name, { median: medians, spread: ratio3(Math.max(...totals), Math.min(...totals)), counts }];
    }),
  );
  const bare = bySide.bare!.median;
  const over = (name: string) => ({ total: ratio3(bySide[name]!.median.total, bare.total), to_listen: ratio3(bySide[name]!.median.to_listen, bare.to_listen), listen_to_answer: ratio3(bySide[name]!.median.listen_to_answer, bare.listen_to_answer) });
  const ratios = Object.fromEntries(Object.keys(bySide).filter((name) => name !== "bare").map((name) => [`${name}_over_bare`, over(name)]));
  return { runs: countedRuns, tool: "valgrind --tool=callgrind, timers stretched 50x", ...bySide, ratios };
}

const temp = tempDir("mg-bench-cold-start-");
const provider = await startPacedProvider({ ttftMs: 0, tokens: 20, tokenGapMs: 0, embeddingsMs: 0, dimensions: 1536 });
const model = (caller: string) => ({ OPENAI_API_KEY: caller, OPENAI_BASE_URL: provider.baseUrl });
const databases: { url: string; drop: () => Promise<void> }[] = [];
try {
  execFileSync("npm", ["run", "--silent", "build"], { stdio: "inherit" });
  // The baseline built as its package.json builds it: bundled (dist/service) where it was, else compiled.
  if (args.baseline) execFileSync("npm", ["run", "--silent", "build"], { stdio: "inherit", cwd: args.baseline });
  const baselineEntry = args.baseline && fs.existsSync(path.join(args.baseline, SERVICE)) ? SERVICE : "dist/cli/start.js";
  const bare = compileBare(temp.dir);
  const sqlite = (side: string) => (dir: string, run: number) => ({ MEMORY_BACKEND: "sqlite", SQLITE_PATH: path.join(dir, `${side}-${run}.db`), ...model(side) });
  const sides: Side[] = [
    { name: "bare", entry: bare, cwd: process.cwd(), env: (dir, run) => ({ SQLITE_PATH: path.join(dir, `bare-${run}.db`), ...model("bare") }) },
    { name: "ours", entry: SERVICE, cwd: process.cwd(), env: sqlite("ours") },
    { name: "ours_modules", entry: "dist/cli/start.js", cwd: process.cwd(), env: sqlite("ours_modules") },
  ];
  if (args.baseline) sides.push({ name: "baseline", entry: baselineEntry, cwd: path.resolve(args.baseline), env: sqlite("baseline") });
  if (postgresUrl) {
    // One database for every run, its tables made by a first start not measured: an instance starts on a database in use.
    databases.push(await tempDatabase(postgresUrl, `mg_cold_${process.pid}`));
    const postgres: Side = { name: "ours_postgres", entry: SERVICE, cwd: process.cwd(), env: () => ({ MEMORY_BACKEND: "postgres", DATABASE_URL: databases[0]!.url, ...model("ours_postgres") }) };
    await coldStart(postgres, temp.dir, -1);
    sides.push(postgres);
  }
  // The floor of a graph of our shape (bench/lib/bare-chatbot-server.ts, BARE_SHAPE=six_nodes), counted only.
  const floor: Side = { name: "floor_six_nodes", entry: bare, cwd: process.cwd(), env: (dir, run) => ({ BARE_SHAPE: "six_nodes", SQLITE_PATH: path.join(dir, `floor-${run}.db`), ...model("floor") }) };
  const countedSides = [...sides.filter((side) => ["bare", "ours", "baseline"].includes(side.name)), floor];
  // Each side's cache filled by a start and turn not measured (Postgres's first start above filled
  // its own); the floor's too when it is counted. A counted start is killed at its answer, so it
  // writes nothing to the cache: every counted start reads the cache as filled.
  const filled = [...sides.filter((side) => side.name !== "ours_postgres"), ...(countedRuns > 0 ? [floor] : [])];
  if (compileCache) for (const side of filled) await coldStart(side, temp.dir, -1);
  const cacheFiles = Object.fromEntries(sides.map((side) => [side.name, compileCache ? fs.readdirSync(cacheDir(side, temp.dir), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length : 0]));
  const starts = new Map<string, Start[]>(sides.map((side) => [side.name, []]));
  for (let run = 0; run < runs; run += 1) {
    // The order turns every run: no side always starts right after another's exit.
    for (let i = 0; i < sides.length; i += 1) {
      const side = sides[(i + run) % sides.length]!;
      starts.get(side.name)!.push(await coldStart(side, temp.dir, run));
    }
  }
  const counted = countedRuns > 0 ? await countInstructions(countedSides, temp.dir) : undefined;
  const results = runs > 0 ? Object.fromEntries([...starts].map(([name, list]) => [name, summary(list)])) : {};
  const bareMedian = results.bare?.answer_ms.median ?? 0;
  const report = {
    runs,
    message,
    model: "OpenAI-compatible stand-in in the benchmark's process, answering at once (20-token replies)",
    runtime: `node ${process.version}, compiled`,
    compile_cache: compileCache ? { files: cacheFiles } : false,
    target: { ours_over_bare: TARGET },
    ...results,
    ratios: Object.fromEntries(Object.keys(results).filter((name) => name !== "bare").map((name) => [`${name}_over_bare`, ratio(results[name]!.answer_ms.median, bareMedian)])),
    cpu_ratios: Object.fromEntries(Object.keys(results).filter((name) => name !== "bare").map((name) => [`${name}_over_bare`, ratio(results[name]!.cpu_ms.median, results.bare!.cpu_ms.median)])),
    ...(counted ? { instructions: counted } : {}),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  await provider.close();
  for (const database of databases) await database.drop();
  temp.remove();
}
