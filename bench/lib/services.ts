import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./free-port.js";
import { memoryLimit } from "./memory-limit.js";

/** A service a benchmark started as a child process, with the CPU it has used so far. */
export interface Service {
  name: string;
  url: string;
  /** The process id (for readings from /proc). */
  pid: number;
  /** CPU (user + system) the process has used since it started, in ms (from /proc: 10 ms ticks). */
  cpuMs(): number;
  stop(): Promise<void>;
}

const TICK_MS = 1000 / 100;

/** utime + stime of a process, from /proc/<pid>/stat (Linux), in ms. */
function processCpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function started(child: ChildProcess, url: string, name: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!(await fetch(`${url}/healthz`).then((r) => r.ok).catch(() => false))) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${name} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Starts `entry` (a TypeScript file, through tsx, or a compiled .js file) with `env` on a free
 * port of 127.0.0.1, one process (no workers), logging errors only, to this process's stderr;
 * resolves once /healthz answers.
 * With BENCH_CPU_PROF=<dir> each service writes V8 CPU profiles (one per thread) under <dir>/<name> when it stops.
 * With `memoryMb`, it runs under that memory limit, as in a container (`memoryLimit`).
 */
export async function startService(name: string, entry: string, env: Record<string, string>, memoryMb?: number): Promise<Service> {
  const port = await freePort();
  const loader = entry.endsWith(".ts") ? ["--import", "tsx"] : [];
  // A CPU profile of each service, written when it stops, when BENCH_CPU_PROF names a directory.
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.join(process.env.BENCH_CPU_PROF, name)}`] : [];
  const limit = memoryMb === undefined ? undefined : memoryLimit(memoryMb, name);
  const argv = [...profile, ...loader, entry];
  const child = spawn(...(limit ? limit.wrap(process.execPath, argv) : ([process.execPath, argv] as const)), {
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", API_KEYS: "", LOG_LEVEL: "error", WEB_CONCURRENCY: "1", ...env },
    // The service's log lines (errors only, unless `env` says otherwise) go to this process's stderr: stdout holds the report.
    stdio: ["ignore", 2, "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    limit?.remove();
  };
  // One that never answers is stopped, and its memory limit removed, before the error goes on.
  await started(child, url, name).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { name, url, pid: child.pid!, cpuMs: () => processCpuMs(child.pid!), stop };
}

/** The memory-graph service (`src/cli/start.ts`, or `dist/cli/start.js` when `compiled`) on a SQLite file `<name>.db` in `dir`; with `memoryMb`, under that memory limit. */
export function startOurs(dir: string, env: Record<string, string>, compiled = false, name = "memory_graph", memoryMb?: number): Promise<Service> {
  const entry = compiled ? "dist/cli/start.js" : "src/cli/start.ts";
  return startService(name, entry, { MEMORY_BACKEND: "sqlite", SQLITE_PATH: path.join(dir, `${name}.db`), ...env }, memoryMb);
}

/**
 * The model settings of a service whose model is at `baseUrl`, with `caller` as its API key: a
 * stand-in shared by several services tells their calls apart by it (see `PacedProvider.tokens`).
 */
export const modelAt = (baseUrl: string, caller: string) => ({ OPENAI_API_KEY: caller, OPENAI_BASE_URL: baseUrl });

/** The bare LangGraph chatbot (bench/lib/bare-chatbot-server.ts) on a SQLite file in `dir`, its model at `baseUrl` (API key `bare`). */
export function startBare(dir: string, baseUrl: string): Promise<Service> {
  return startService("bare_langgraph", "bench/lib/bare-chatbot-server.ts", { SQLITE_PATH: path.join(dir, "bare.db"), ...modelAt(baseUrl, "bare") });
}

/**
 * The bare chatbot in the memory graph's shape (BARE_SHAPE=six_nodes: six nodes, both conditional
 * edges, the classification's model call each turn, nothing stored or recalled): the floor of a
 * turn of our design built from the official parts. Its API key is `six_node_floor`.
 */
export function startFloor(dir: string, baseUrl: string): Promise<Service> {
  return startService("six_node_floor", "bench/lib/bare-chatbot-server.ts", { SQLITE_PATH: path.join(dir, "floor.db"), ...modelAt(baseUrl, "six_node_floor"), BARE_SHAPE: "six_nodes" });
}

/** A temporary directory, removed by the returned function. */
export function tempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** What one turn took, seen by the client: first token (streaming only), full turn, tokens received. */
export interface TurnTiming {
  ttft: number;
  turn: number;
  tokens: number;
}

const bodyOf = (session: string, message: string, fields: Record<string, unknown> = {}) => JSON.stringify({ user_id: `user-${session}`, session_id: session, message, ...fields });

/** One turn over POST /v1/turns/stream (with `fields` added to its body): timed to the first `token` event and to the `result` event. */
export async function streamTurn(url: string, session: string, message: string, fields?: Record<string, unknown>): Promise<TurnTiming> {
  const started = performance.now();
  const response = await fetch(`${url}/v1/turns/stream`, { method: "POST", headers: { "content-type": "application/json" }, body: bodyOf(session, message, fields) });
  if (!response.ok || !response.body) throw new Error(`turn answered ${response.status}`);
  const decoder = new TextDecoder();
  let text = "";
  let ttft = 0;
  let turn = 0;
  for await (const chunk of response.body) {
    text += decoder.decode(chunk as Uint8Array, { stream: true });
    if (!ttft && text.includes("event: token")) ttft = performance.now() - started;
    if (!turn && text.includes("event: result")) turn = performance.now() - started;
    if (text.includes("event: error")) throw new Error(`turn failed: ${text.slice(-300)}`);
  }
  const tokens = text.split("event: token").length - 1;
  return { ttft, turn: turn || performance.now() - started, tokens };
}

/** One turn over POST /v1/turns. */
export async function jsonTurn(url: string, session: string, message: string): Promise<TurnTiming> {
  const started = performance.now();
  const response = await fetch(`${url}/v1/turns`, { method: "POST", headers: { "content-type": "application/json" }, body: bodyOf(session, message) });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`turn answered ${response.status}`);
  const turn = performance.now() - started;
  return { ttft: turn, turn, tokens: 0 };
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** p50/p95/max of `values`, nearest rank, one decimal. */
export function stats(values: readonly number[]): { p50: number; p95: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
  return { p50: round1(at(0.5)), p95: round1(at(0.95)), max: round1(sorted.at(-1) ?? 0) };
}

/** a / b to two decimals (0 when b is 0). */
export const ratio = (a: number, b: number) => (b > 0 ? Math.round((a / b) * 100) / 100 : 0);
