/**
 * `npm run bench:load`: the service in its deployed shape under traffic. Two service processes (`src/cli/start.ts`, as
 * two Cloud Run instances behind one load balancer) on one Postgres database (long-term memory) with their sessions in
 * Redis (a private redis-server), their model at a paced OpenAI-compatible stand-in (first token after --ttft ms, then
 * 20 tokens --gap ms apart; memory classifies and embeds there too).
 *
 * Before the traffic, --users users are given histories of different lengths, written straight
 * into the store as an import writes them (most short: 4–40 messages; 18% 50–300; 2% 500–2,000;
 * --long users 10,000), in a fresh database. Then for --seconds, visits arrive (open loop: a
 * visit starts on time whether or not the others ended) at a rate that makes --rate turns a
 * second: in each, a user sends 1–5 turns in a new session, each after the last one's answer and a
 * pause; 80% of visits are by a user who came in the last two minutes (the distinct users alike, not
 * weighted by their visits), 20% by any user (usually one no instance has served yet). Each turn goes
 * to the two instances in turn (no sticking), over POST /v1/turns/stream; recall reads the user's earlier sessions.
 *
 * Prints JSON: first token and result p50/p95/p99 of all turns and split by whether the instance
 * that took the turn had served that user before (`cached`) or not (`unseen`), errors (by code),
 * turns refused at capacity (503 OVERLOADED with Retry-After: admission control, counted apart from
 * errors, with how fast the refusal came), the unseen/cached first-token p95 ratio beside the
 * target (≤ 1.2), each instance's RSS and CPU and the Postgres connections (and those waiting on a
 * lock) sampled every 2 s, as a timeline of 10 s steps and their maxima.
 *
 * --database NAME seeds a database of that name once and keeps it, so that later runs skip the seeding; --max-concurrent,
 * --queue-ms, --cache-mb and --node-options set the instances' MAX_CONCURRENT_TURNS, TURN_QUEUE_MS, RECALL_CACHE_MB and
 * NODE_OPTIONS (defaults when absent), --memory-mb a memory limit for each as Cloud Run's --memory (`lib/memory-limit.ts`).
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import pg from "pg";
import { flagsOrExit } from "../src/cli/args.js";
import { setLogLevel } from "../src/logger.js";
import { namespaces } from "../src/memory/namespaces.js";
import type { TranscriptRecord } from "../src/memory/records.js";
import { PostgresStore } from "../src/storage/postgres/store.js";
import { percentile, round } from "./lib/metrics.js";
import { startPacedProvider } from "./lib/paced-provider.js";
import { startRedisChild } from "./lib/redis-child.js";
import { modelAt, startOurs, tempDir, type Service, type TurnTiming } from "./lib/services.js";
import { seededRandom, syntheticSentence } from "./lib/synthetic.js";

const args = flagsOrExit(
  process.argv.slice(2),
  {
    users: { type: "string" },
    long: { type: "string" },
    seconds: { type: "string" },
    rate: { type: "string" },
    ttft: { type: "string" },
    gap: { type: "string" },
    "database-url": { type: "string" },
    database: { type: "string" },
    "max-concurrent": { type: "string" },
    "queue-ms": { type: "string" },
    "cache-mb": { type: "string" },
    "node-options": { type: "string" },
    "memory-mb": { type: "string" },
  },
  "usage: npm run bench:load -- [--users 10000] [--long 3] [--seconds 180] [--rate 8] [--ttft 300] [--gap 15] [--database-url postgres://…/test] [--database mg_load_kept] [--max-concurrent 8] [--queue-ms 500] [--cache-mb 128] [--node-options='--max-old-space-size=256'] [--memory-mb 512]",
);
const USERS = Number(args.users ?? 10_000);
const [LONG, SECONDS, RATE] = [Number(args.long ?? 3), Number(args.seconds ?? 180), Number(args.rate ?? 8)];
const [TTFT, GAP, memoryMb] = [Number(args.ttft ?? 300), Number(args.gap ?? 15), args["memory-mb"] === undefined ? undefined : Number(args["memory-mb"])];
const ADMIN_URL = args["database-url"] ?? process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const TARGET_UNSEEN_OVER_CACHED_P95 = 1.2;
const random = seededRandom(11);

/** How many messages user `n` has: the --long users first, then a mix of short, medium and long histories. */
function historyLength(n: number): number {
  if (n < LONG) return 10_000;
  const draw = random();
  if (draw < 0.8) return 4 + Math.floor(random() * 37);
  if (draw < 0.98) return 50 + Math.floor(random() * 251);
  return 500 + Math.floor(random() * 1501);
}

/** Seeded user `n` (`sendTurn` sends it for sessions `u<n>-<visit>`). */ const userOf = (n: number) => `user-u${n}`;

/** Writes every user's history into the store of `url`, one batch per 500 messages; returns the messages written. */
async function seed(url: string): Promise<number> {
  const store = PostgresStore.fromConnString(url, {});
  await store.setup();
  let written = 0;
  try {
    for (let n = 0; n < USERS; n++) {
      const scope = { tenantId: "default", userId: userOf(n), sessionId: "history" };
      const length = historyLength(n);
      const start = Date.UTC(2025, 0, 1) + n * 1000;
      for (let from = 0; from < length; from += 500) {
        const ops = [];
        for (let i = from; i < Math.min(length, from + 500); i++) {
          const record: TranscriptRecord = {
            id: `h${n}-${i}`,
            role: i % 2 === 0 ? "user" : "assistant",
            text: syntheticSentence(random, 6 + Math.floor(random() * 14)),
            parentId: i === 0 ? null : `h${n}-${i - 1}`,
            sessionId: scope.sessionId,
            createdAt: new Date(start + i * 60_000).toISOString(),
          };
          ops.push({ namespace: namespaces.transcript(scope), key: record.id, value: { ...record } });
        }
        await store.batch(ops);
        written += ops.length;
      }
    }
  } finally {
    await store.close();
  }
  return written;
}

/** Resident set size of process `pid`, in MB (from /proc). */
function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return round(kb / 1024, 1);
}

interface Sent extends TurnTiming {
  instance: number;
  cached: boolean;
}

/** What one turn came to: answered (timed), refused at capacity (503 OVERLOADED), or failed (with its code). */
type Outcome = { kind: "ok"; timing: TurnTiming } | { kind: "shed"; ms: number; retryAfter: string | null } | { kind: "error"; code: string; detail: string };

/** One turn over POST /v1/turns/stream, timed to the first `token` event and to the `result` event. */
async function sendTurn(url: string, session: string, message: string): Promise<Outcome> {
  const started = performance.now();
  try {
    const response = await fetch(`${url}/v1/turns/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user_id: `user-${session.split("-")[0]}`, session_id: session, message }), // user-u<n>: a seeded user
    });
    if (!response.ok || !response.body) {
      const body = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
      const code = body.error?.code ?? `HTTP_${response.status}`;
      if (code === "OVERLOADED") return { kind: "shed", ms: performance.now() - started, retryAfter: response.headers.get("retry-after") };
      return { kind: "error", code, detail: body.error?.message ?? "" };
    }
    const decoder = new TextDecoder();
    let [text, ttft, turn] = ["", 0, 0];
    for await (const chunk of response.body) {
      text += decoder.decode(chunk as Uint8Array, { stream: true });
      if (!ttft && text.includes("event: token")) ttft = performance.now() - started;
      if (!turn && text.includes("event: result")) turn = performance.now() - started;
    }
    const failed = /event: error\ndata: (.*)/.exec(text);
    if (failed) {
      const data = JSON.parse(failed[1] ?? "{}") as { error?: { code?: string; message?: string } };
      return { kind: "error", code: data.error?.code ?? "STREAM_ERROR", detail: data.error?.message ?? "" };
    }
    return { kind: "ok", timing: { ttft, turn: turn || performance.now() - started, tokens: text.split("event: token").length - 1 } };
  } catch (error) {
    return { kind: "error", code: "FETCH_FAILED", detail: error instanceof Error ? error.message : String(error) };
  }
}

const summary = (values: readonly number[]) => ({ n: values.length, p50: round(percentile(values, 50), 1), p95: round(percentile(values, 95), 1), p99: round(percentile(values, 99), 1) });

setLogLevel("warn");
const KEEP = args.database !== undefined;
if (KEEP && !/^[a-z_][a-z0-9_]{0,62}$/.test(args.database ?? "")) throw new Error("--database must be a plain lower-case database name");
const database = args.database ?? `mg_load_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
const exists = (await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [database])).rowCount === 1;
if (!exists) await admin.query(`CREATE DATABASE ${database}`);
const url = new URL(ADMIN_URL);
url.pathname = `/${database}`;
const databaseUrl = url.toString();
const temp = tempDir("mg-load-");
const redis = await startRedisChild();
const provider = await startPacedProvider({ ttftMs: TTFT, tokens: 20, tokenGapMs: GAP, embeddingsMs: 0, dimensions: 1536 });
const instances: Service[] = [];
try {
  const seedStarted = performance.now();
  // A kept database seeded before is used as it is (its histories, and the turns of earlier runs).
  const messages = exists ? 0 : await seed(databaseUrl);
  const seedSeconds = round((performance.now() - seedStarted) / 1000, 1);
  const settings = {
    ...(args["max-concurrent"] === undefined ? {} : { MAX_CONCURRENT_TURNS: args["max-concurrent"] }),
    ...(args["queue-ms"] === undefined ? {} : { TURN_QUEUE_MS: args["queue-ms"] }),
    ...(args["cache-mb"] === undefined ? {} : { RECALL_CACHE_MB: args["cache-mb"] }),
    ...(args["node-options"] === undefined ? {} : { NODE_OPTIONS: args["node-options"] }),
  };
  const env = { MEMORY_BACKEND: "redis", REDIS_URL: redis.url, DATABASE_URL: databaseUrl, ...modelAt(provider.baseUrl, "load"), ...settings };
  for (const name of ["instance_a", "instance_b"]) instances.push(await startOurs(temp.dir, env, false, name, memoryMb));

  const served = instances.map(() => new Set<number>());
  const recent: { user: number; at: number }[] = [];
  const sent: Sent[] = [];
  const shed: { ms: number; retryAfter: string | null }[] = [];
  const errorCodes: Record<string, number> = {};
  const errorSamples: string[] = [];
  const runStarted = performance.now();
  /** Every 2 s: each instance's RSS (MB) and CPU (% of one core since the last sample), Postgres connections and those waiting on a lock, turns so far. */
  const samples: { t: number; rss: number[]; cpu: number[]; connections: number; lock_waits: number; ok: number; shed: number; errors: number }[] = [];
  const lastCpu = instances.map((instance) => ({ at: performance.now(), ms: instance.cpuMs() }));
  const sampler = setInterval(() => {
    const now = performance.now();
    const cpu = instances.map((instance, i) => {
      const ms = instance.cpuMs();
      const share = (100 * (ms - lastCpu[i]!.ms)) / (now - lastCpu[i]!.at);
      lastCpu[i] = { at: now, ms };
      return round(share, 0);
    });
    const row = { t: round((now - runStarted) / 1000, 0), rss: instances.map((instance) => rssMb(instance.pid)), cpu, connections: 0, lock_waits: 0, ok: sent.length, shed: shed.length, errors: errorCount() };
    samples.push(row);
    void admin
      .query<{ n: number; waits: number }>(
        "SELECT count(*)::int AS n, count(*) FILTER (WHERE wait_event_type = 'Lock')::int AS waits FROM pg_stat_activity WHERE datname = $1",
        [database],
      )
      .then((r) => Object.assign(row, { connections: r.rows[0]?.n ?? 0, lock_waits: r.rows[0]?.waits ?? 0 }));
  }, 2000);
  const errorCount = () => Object.values(errorCodes).reduce((a, b) => a + b, 0);

  let next = 0;
  /** One turn of `user`, on the instance whose turn it is (a load balancer that does not stick). */
  async function turn(user: number): Promise<void> {
    const instance = next++ % instances.length;
    const cached = served[instance]!.has(user);
    served[instance]!.add(user);
    const outcome = await sendTurn(instances[instance]!.url, `u${user}-${visits}`, `${syntheticSentence(random, 8)} What did we say about that?`);
    if (outcome.kind === "ok") sent.push({ ...outcome.timing, instance, cached });
    else if (outcome.kind === "shed") {
      shed.push(outcome);
      if (!cached) served[instance]!.delete(user); // refused before it ran: the instance did not serve the user
    } else {
      errorCodes[outcome.code] = (errorCodes[outcome.code] ?? 0) + 1;
      if (errorSamples.length < 5) errorSamples.push(`${outcome.code}: ${outcome.detail}`.slice(0, 300));
    }
  }

  let visits = 0;
  /** One visit: a user as the traffic draws them sends 1–5 turns, each after the last one's answer and a pause of 0.5–2 s. */
  async function visit(): Promise<void> {
    visits += 1;
    const now = performance.now();
    while (recent.length > 0 && now - recent[0]!.at > 120_000) recent.shift();
    const recentUsers = [...new Set(recent.map((r) => r.user))];
    const user = recentUsers.length > 0 && random() < 0.8 ? recentUsers[Math.floor(random() * recentUsers.length)]! : Math.floor(random() * USERS);
    recent.push({ user, at: now });
    const turns = 1 + Math.floor(random() * 5);
    for (let t = 0; t < turns; t++) {
      if (t > 0) await new Promise((resolve) => setTimeout(resolve, 500 + random() * 1500));
      await turn(user);
    }
  }

  // Visits arrive open loop at a rate that makes --rate turns a second (a visit has 3 turns on average).
  const started = performance.now();
  const running: Promise<void>[] = [];
  for (let k = 0; performance.now() - started < SECONDS * 1000; k++) {
    const wait = started + (k * 3000) / RATE - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    running.push(visit());
  }
  await Promise.all(running);
  clearInterval(sampler);

  const of = (cached: boolean | null, pick: (t: Sent) => number) => sent.filter((t) => cached === null || t.cached === cached).map(pick);
  const cachedP95 = percentile(of(true, (t) => t.ttft), 95);
  const unseenP95 = percentile(of(false, (t) => t.ttft), 95);
  const report = {
    benchmark: "load",
    shape: "two service processes, Postgres long-term memory, Redis sessions, paced OpenAI-compatible stand-in",
    users: USERS,
    seeded_messages: messages,
    seed_seconds: seedSeconds,
    seconds: SECONDS,
    rate_per_s: RATE,
    pacing: { ttft_ms: TTFT, tokens: 20, token_gap_ms: GAP },
    settings: { ...settings, ...(memoryMb === undefined ? {} : { memory_mb: memoryMb }) },
    turns: sent.length,
    errors: errorCount(),
    error_codes: errorCodes,
    error_samples: errorSamples,
    // Refused at capacity (503 OVERLOADED, Retry-After): not errors; how fast the refusal came.
    shed: { n: shed.length, share: round(shed.length / Math.max(1, sent.length + shed.length + errorCount()), 3), ms: summary(shed.map((x) => x.ms)), retry_after: shed[0]?.retryAfter ?? null },
    first_token_ms: { all: summary(of(null, (t) => t.ttft)), cached: summary(of(true, (t) => t.ttft)), unseen: summary(of(false, (t) => t.ttft)) },
    result_ms: { all: summary(of(null, (t) => t.turn)), cached: summary(of(true, (t) => t.turn)), unseen: summary(of(false, (t) => t.turn)) },
    unseen_over_cached_first_token_p95: round(unseenP95 / cachedP95, 2),
    rss_mb: instances.map((instance, i) => ({ instance: instance.name, max: Math.max(...samples.map((x) => x.rss[i]!)), last: samples.at(-1)?.rss[i] ?? 0 })),
    cpu_percent_of_a_core: instances.map((instance, i) => ({ instance: instance.name, p50: round(percentile(samples.map((x) => x.cpu[i]!), 50), 0), max: Math.max(...samples.map((x) => x.cpu[i]!)) })),
    postgres_connections_max: Math.max(0, ...samples.map((x) => x.connections)),
    postgres_lock_waits_max: Math.max(0, ...samples.map((x) => x.lock_waits)),
    timeline_every_10s: samples.filter((_, i) => i % 5 === 4),
    met: { no_errors: errorCount() === 0, unseen_first_token_p95: unseenP95 / cachedP95 <= TARGET_UNSEEN_OVER_CACHED_P95 },
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  await Promise.all(instances.map((instance) => instance.stop()));
  await provider.close();
  await redis.dispose();
  temp.remove();
  if (!KEEP) await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}
