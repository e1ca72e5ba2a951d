/**
 * `npm run bench:outage`: the service (`src/cli/start.ts`, MEMORY_BACKEND=redis with long-term
 * memory in Postgres, offline responder) under a steady stream of turns — 8 sessions, each sending
 * its next turn as soon as the last is answered, for 60 s — while its private redis-server is
 * stopped for 15 s (from 10 s) and, later, a TCP proxy cuts its Postgres for 10 s (from 35 s).
 * Nothing shared is stopped: Redis is the benchmark's own, Postgres is reached through its own
 * proxy, in a database of its own. Afterwards every session's thread is read back.
 *
 * Prints JSON: turns answered (200), of them degraded; refused (503); failed (any other 5xx or no
 * answer: target 0); messages lost (an answered turn's message missing from its session's thread:
 * target 0) and refused turns found stored anyway; the longest request (target: at most 2 s past
 * the storage timeout); per phase, counts and p50/p99/max latency.
 *
 *   npm run bench:outage -- [--seconds 60] [--sessions 8] [--storage-timeout 1500] [--postgres URL]
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import pg from "pg";
import { flagsOrExit } from "../src/cli/args.js";
import { freePort } from "./lib/free-port.js";
import { startRedisChild } from "./lib/redis-child.js";
import { startTcpProxy } from "./lib/tcp-proxy.js";

const args = flagsOrExit(
  process.argv.slice(2),
  { seconds: { type: "string" }, sessions: { type: "string" }, "storage-timeout": { type: "string" }, postgres: { type: "string" } },
  "usage: npm run bench:outage -- [--seconds 60] [--sessions 8] [--storage-timeout 1500] [--postgres URL]",
);
const seconds = Number(args.seconds ?? 60);
const sessions = Number(args.sessions ?? 8);
const storageTimeoutMs = Number(args["storage-timeout"] ?? 1500);
const adminUrl = args.postgres ?? process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
// The outages, scaled with --seconds (at 60 s: Redis 10–25 s, Postgres 35–45 s).
const scale = seconds / 60;
const redisOutage = { from: 10_000 * scale, to: 25_000 * scale };
const postgresOutage = { from: 35_000 * scale, to: 45_000 * scale };

type Phase = "steady" | "redis_stopped" | "postgres_cut";
interface Sample {
  session: string;
  text: string;
  phase: Phase;
  status: number;
  ms: number;
  degraded: boolean;
  ids: string[];
}

const admin = new URL(adminUrl);
const dbName = `mg_bench_outage_${randomUUID().replace(/-/g, "").slice(0, 10)}`;
const adminClient = new pg.Client({ connectionString: adminUrl });
await adminClient.connect();
await adminClient.query(`CREATE DATABASE ${dbName}`);
const redis = await startRedisChild({ persist: true });
const proxy = await startTcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
const serviceUrl = new URL(adminUrl);
serviceUrl.host = `127.0.0.1:${proxy.port}`;
serviceUrl.pathname = `/${dbName}`;
const port = await freePort();
const child = spawn(process.execPath, ["--import", "tsx", path.resolve("src/cli/start.ts")], {
  env: {
    ...process.env,
    PORT: String(port),
    MEMORY_BACKEND: "redis",
    REDIS_URL: redis.url,
    DATABASE_URL: serviceUrl.toString(),
    STORAGE_TIMEOUT_MS: String(storageTimeoutMs),
    LOG_LEVEL: "info",
    OPENAI_API_KEY: "",
    OPENAI_BASE_URL: "",
    API_KEYS: "",
  },
  stdio: ["ignore", "pipe", "inherit"],
});
let log = "";
child.stdout.on("data", (chunk: Buffer) => (log += chunk.toString()));
const base = `http://127.0.0.1:${port}`;
for (let i = 0; i < 120 && !(await fetch(`${base}/readyz`).then((r) => r.ok).catch(() => false)); i += 1) {
  await new Promise((resolve) => setTimeout(resolve, 250));
}

const samples: Sample[] = [];
const started = performance.now();
const elapsed = () => performance.now() - started;
let phase: Phase = "steady";

async function drive(session: string): Promise<void> {
  for (let n = 1; elapsed() < seconds * 1000; n += 1) {
    const text = `${session} turn ${n}: what does plan ${n} cost per month?`;
    const at = performance.now();
    const sentIn = phase;
    let status = 0;
    let body: { degraded?: string[]; message_ids?: { user: string | null; assistant: string | null } } = {};
    try {
      const res = await fetch(`${base}/v1/turns`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ user_id: "bench-user", session_id: session, message: text }),
        signal: AbortSignal.timeout(30_000),
      });
      status = res.status;
      body = (await res.json()) as typeof body;
    } catch {
      // No answer within 30 s (or none at all): counted with the failures, as status 0.
    }
    const ids = [body.message_ids?.user, body.message_ids?.assistant].filter((id): id is string => typeof id === "string");
    samples.push({ session, text, phase: sentIn, status, ms: performance.now() - at, degraded: (body.degraded ?? []).length > 0, ids });
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const schedule = [
  setTimeout(() => void redis.stop().then(() => (phase = "redis_stopped")), redisOutage.from),
  setTimeout(() => void redis.start().then(() => (phase = "steady")), redisOutage.to),
  setTimeout(() => ((phase = "postgres_cut"), proxy.cut()), postgresOutage.from),
  setTimeout(() => ((phase = "steady"), proxy.restore()), postgresOutage.to),
];
const names = Array.from({ length: sessions }, (_, i) => `outage-${i + 1}`);
await Promise.all(names.map(drive));
for (const timer of schedule) clearTimeout(timer);
await redis.start();
proxy.restore();
for (let i = 0; i < 80 && !(await fetch(`${base}/readyz`).then((r) => r.ok).catch(() => false)); i += 1) {
  await new Promise((resolve) => setTimeout(resolve, 250));
}

// Every answered turn's messages must be on its session's thread; no refused turn's message may be.
let lost = 0;
let strays = 0;
let broken = 0;
for (const session of names) {
  const res = await fetch(`${base}/v1/sessions/${session}/messages?user_id=bench-user`);
  const thread = res.ok ? ((await res.json()) as { messages: { id: string; text: string; parent_id: string | null }[] }).messages : [];
  const ids = new Set(thread.map((m) => m.id));
  const texts = new Set(thread.map((m) => m.text));
  for (const sample of samples.filter((s) => s.session === session)) {
    if (sample.status === 200) lost += sample.ids.filter((id) => !ids.has(id)).length;
    else if (texts.has(sample.text)) strays += 1;
  }
  for (let i = 1; i < thread.length; i += 1) if (thread[i]?.parent_id !== thread[i - 1]?.id) broken += 1;
}

child.kill("SIGTERM");
await new Promise((resolve) => child.once("exit", resolve));
await proxy.close();
await redis.dispose();
await adminClient.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await adminClient.end();

const round = (ms: number) => Math.round(ms);
function latency(of: Sample[]) {
  const sorted = of.map((s) => s.ms).sort((a, b) => a - b);
  const at = (p: number) => round(sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0);
  return { p50: at(50), p99: at(99), max: round(sorted.at(-1) ?? 0) };
}
function counts(of: Sample[]) {
  return {
    turns: of.length,
    answered: of.filter((s) => s.status === 200).length,
    degraded: of.filter((s) => s.status === 200 && s.degraded).length,
    refused_503: of.filter((s) => s.status === 503).length,
    failed_other: of.filter((s) => s.status !== 200 && s.status !== 503).length,
    latency_ms: latency(of),
  };
}
const longest = Math.max(...samples.map((s) => s.ms));
const logCount = (event: string) => log.split("\n").filter((line) => line.includes(`"event":"${event}"`)).length;
const report = {
  seconds,
  sessions,
  storage_timeout_ms: storageTimeoutMs,
  outages_ms: { redis_stopped: [round(redisOutage.from), round(redisOutage.to)], postgres_cut: [round(postgresOutage.from), round(postgresOutage.to)] },
  ...counts(samples),
  messages_lost: lost,
  refused_but_stored: strays,
  thread_breaks: broken,
  longest_request_ms: round(longest),
  longest_past_storage_timeout_ms: round(longest - storageTimeoutMs),
  targets: { failed_other_is_0: samples.every((s) => s.status === 200 || s.status === 503), messages_lost_is_0: lost === 0, longest_within_timeout_plus_2s: longest <= storageTimeoutMs + 2000 },
  phases: Object.fromEntries((["steady", "redis_stopped", "postgres_cut"] as const).map((p) => [p, counts(samples.filter((s) => s.phase === p))])),
  log: { dependency_lost: logCount("dependency.lost"), dependency_recovered: logCount("dependency.recovered"), turn_degraded_warnings: logCount("turn.degraded") },
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
