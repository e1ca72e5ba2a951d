/**
 * `npm run bench:service`: the HTTP service on SQLite with the offline responder, driven over
 * loopback by autocannon with 32 concurrent sessions for 20 s (override with --seconds and
 * --connections), after a 3 s warm-up on sessions of its own (--warmup, 0 for none; its figures
 * are reported apart). The service runs as deployed: compiled (`npm run build`, then
 * `node dist/cli/start.js`) with WEB_CONCURRENCY workers, one per core unless --workers says
 * otherwise; --tsx runs `src/cli/start.ts` through tsx instead. Prints JSON: turns/s, latency
 * p50/p95/p99 and error counts.
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { flagsOrExit } from "../src/cli/args.js";
import { freePort } from "./lib/free-port.js";

const args = flagsOrExit(
  process.argv.slice(2),
  { seconds: { type: "string" }, connections: { type: "string" }, warmup: { type: "string" }, workers: { type: "string" }, tsx: { type: "boolean" } },
  "usage: npm run bench:service -- [--seconds N] [--connections N] [--warmup N] [--workers N] [--tsx]",
);
const seconds = Number(args.seconds ?? 20);
const connections = Number(args.connections ?? 32);
const warmupSeconds = Number(args.warmup ?? 3);
const workers = Number(args.workers ?? os.availableParallelism());
const viaTsx = args.tsx === true;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-bench-service-"));
const port = await freePort();
if (!viaTsx) execFileSync(process.execPath, [path.resolve("node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], { stdio: "inherit" });
const [command, entry] = viaTsx ? [path.resolve("node_modules/.bin/tsx"), "src/cli/start.ts"] : [process.execPath, "dist/cli/start.js"];
const child = spawn(command, [entry], {
  env: {
    ...process.env,
    PORT: String(port),
    SQLITE_PATH: path.join(dir, "memory.db"),
    LOG_LEVEL: "error",
    OPENAI_API_KEY: "",
    OPENAI_BASE_URL: "",
    API_KEYS: "",
    WEB_CONCURRENCY: String(workers),
  },
  stdio: ["ignore", "ignore", "inherit"],
});
const base = `http://127.0.0.1:${port}`;
for (let i = 0; i < 120; i += 1) {
  if (await fetch(`${base}/readyz`).then((r) => r.ok).catch(() => false)) break;
  await new Promise((resolve) => setTimeout(resolve, 500));
}

/** Drives `connections` sessions (one per connection, named `<prefix>-N`) for `duration` seconds. */
function drive(duration: number, prefix: string, latencies?: number[]): Promise<autocannon.Result> {
  let connection = 0;
  return new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${base}/v1/turns`,
        connections,
        duration,
        requests: [
          {
            method: "POST",
            headers: { "content-type": "application/json" },
            setupRequest: (request, context) => {
              const state = context as { session?: string; turn?: number };
              state.session ??= `${prefix}-${(connection += 1)}`;
              state.turn = (state.turn ?? 0) + 1;
              const body = { user_id: `user-${state.session}`, session_id: state.session, message: `Question ${state.turn}: what does plan ${state.turn} cost per month?` };
              return { ...request, body: JSON.stringify(body) };
            },
          },
        ],
      },
      (error: unknown, done) => (error ? reject(error instanceof Error ? error : new Error("autocannon failed", { cause: error })) : resolve(done)),
    );
    if (latencies) instance.on("response", (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  });
}

// Warm-up sessions of their own first, so the figures are of a service past start-up and JIT.
const warm = warmupSeconds > 0 ? await drive(warmupSeconds, "warm-up") : undefined;
const latencies: number[] = [];
const result = await drive(seconds, "bench", latencies);
child.kill("SIGTERM");
await new Promise((resolve) => child.once("exit", resolve));
fs.rmSync(dir, { recursive: true, force: true });

latencies.sort((a, b) => a - b);
function percentile(p: number): number {
  const at = Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1);
  return Math.round((latencies[Math.max(0, at)] ?? 0) * 100) / 100;
}

const report = {
  connections,
  seconds,
  workers,
  runtime: viaTsx ? "tsx" : "node dist",
  turns: result.requests.total,
  turns_per_s: Math.round(result.requests.average * 10) / 10,
  latency_ms: { p50: percentile(50), p95: percentile(95), p99: percentile(99), max: result.latency.max },
  errors: result.errors + result.timeouts,
  non_2xx: result.non2xx,
  warmup: warm ? { seconds: warmupSeconds, turns: warm.requests.total, latency_max_ms: warm.latency.max, errors: warm.errors + warm.timeouts + warm.non2xx } : null,
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
