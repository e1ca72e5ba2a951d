/**
 * `npm run bench:import-yield`: whether a long import holds other requests up. The service runs as
 * `npm start` does (src/cli/start.ts, SQLite, offline, one worker) in a child process; this process
 * sends a 1,000-message import (10 sessions of 100 messages of about 200 characters, a fresh user
 * each time) and, while it runs, asks GET /healthz again and again, one request after the other.
 * Runs alternate between a plain import and one with `classify=true` (--runs each, default 3).
 * Prints one JSON line per run and a summary line: /healthz latency p50/p99/max during the import
 * (medians over runs), the import's own time, and whether p99 stayed within 50 ms.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { flagsOrExit } from "../src/cli/args.js";
import { freePort } from "./lib/free-port.js";

const args = flagsOrExit(process.argv.slice(2), { runs: { type: "string" } }, "usage: npm run bench:import-yield -- [--runs N]");
const runs = Number(args.runs ?? 3);
const BOUND_MS = 50;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-bench-import-"));
const port = await freePort();
const child = spawn(process.execPath, ["--import", "tsx", "src/cli/start.ts"], {
  env: { ...process.env, PORT: String(port), SQLITE_PATH: path.join(dir, "m.db"), LOG_LEVEL: "error", OPENAI_API_KEY: "", OPENAI_BASE_URL: "", API_KEYS: "", WEB_CONCURRENCY: "1", NODE_ENV: "", K_SERVICE: "" },
  stdio: ["ignore", "ignore", "inherit"],
});
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function request(method: string, route: string, body?: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path: route, agent, headers: body ? { "content-type": "application/json" } : {} }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const WORDS = "we talked about the trip to Chiang Mai, the quarterly report, my sister's cat Mali, a new phone number and the order that never arrived".split(" ");
function importBody(run: number): string {
  const sessions = Array.from({ length: 10 }, (_, s) => ({
    session_id: `s${s}`,
    started_at: new Date(Date.UTC(2024, 0, 1 + s)).toISOString(),
    messages: Array.from({ length: 100 }, (_, m) => ({
      id: `r${run}s${s}m${m}`,
      role: m % 2 === 0 ? "user" : "assistant",
      text: Array.from({ length: 36 }, (_, w) => WORDS[(run + s * 7 + m * 3 + w) % WORDS.length]).join(" "),
    })),
  }));
  return JSON.stringify(sessions);
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};
const median = (values: number[]) => quantile(values, 0.5);
const round = (ms: number) => Math.round(ms * 10) / 10;

async function measure(run: number, classify: boolean) {
  const latencies: number[] = [];
  let done = false;
  const imported = request("POST", `/v1/users/bench-${run}-${classify}/sessions/import${classify ? "?classify=true" : ""}`, importBody(run)).finally(() => (done = true));
  while (!done) latencies.push((await request("GET", "/healthz")).ms);
  const result = await imported;
  if (result.status !== 200) throw new Error(`import answered ${result.status}`);
  return { run, classify, import_ms: round(result.ms), healthz: { n: latencies.length, p50_ms: round(median(latencies)), p99_ms: round(quantile(latencies, 0.99)), max_ms: round(Math.max(...latencies)) } };
}

try {
  for (let waited = 0; ; waited += 100) {
    if (waited > 30_000) throw new Error("the service did not start");
    if ((await request("GET", "/healthz").catch(() => ({ status: 0 }))).status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await measure(-1, false); // warm-up
  const results: Awaited<ReturnType<typeof measure>>[] = [];
  for (let run = 0; run < runs; run += 1) {
    for (const classify of [false, true]) {
      const result = await measure(run, classify);
      results.push(result);
      console.log(JSON.stringify(result));
    }
  }
  const summary = Object.fromEntries(
    [false, true].map((classify) => {
      const mine = results.filter((r) => r.classify === classify);
      const p99 = median(mine.map((r) => r.healthz.p99_ms));
      return [classify ? "classify" : "plain", { runs: mine.length, import_ms: median(mine.map((r) => r.import_ms)), healthz_p99_ms: p99, healthz_max_ms: median(mine.map((r) => r.healthz.max_ms)), within_bound: p99 <= BOUND_MS }];
    }),
  );
  console.log(JSON.stringify({ bench: "import-yield", messages: 1_000, bound_ms: BOUND_MS, ...summary }));
} finally {
  agent.destroy();
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
  fs.rmSync(dir, { recursive: true, force: true });
}
