/**
 * `npm run bench:service`: throughput and latency of the HTTP service with real sessions — each
 * of --connections clients keeps its own session and sends turn after turn (so summaries happen)
 * for --seconds — on both routes (POST /v1/turns and /v1/turns/stream), beside a bare LangGraph
 * chatbot (one model node, the official SqliteSaver, streamMode "messages", behind the same
 * Hono/SSE surface: bench/lib/bare-chatbot-server.ts) under the same load in the same run. Both
 * are one process on a SQLite file and answer through one instant OpenAI-compatible stand-in
 * (20-token replies, no pacing) run by this process. Phases run in turn — the JSON route of each
 * service, then the streaming route of each — each after a --warmup of its own on other sessions. Ours runs
 * compiled (`dist/cli/start.js`, built first) unless --tsx. A third service takes the same load:
 * the bare chatbot in our graph's shape (six nodes, the classification's model call each turn,
 * nothing stored or recalled: `startFloor`), the floor of a turn of our design. Prints JSON:
 * turns/s, latency p50/p95/p99, errors, turns per session, and the ratios ours / bare and
 * floor / bare.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { flagsOrExit } from "../src/cli/args.js";
import { startPacedProvider } from "./lib/paced-provider.js";
import { jsonTurn, ratio, startBare, startFloor, startOurs, stats, streamTurn, tempDir, type Service, type TurnTiming } from "./lib/services.js";

const args = flagsOrExit(
  process.argv.slice(2),
  { seconds: { type: "string" }, connections: { type: "string" }, warmup: { type: "string" }, tsx: { type: "boolean" } },
  "usage: npm run bench:service -- [--seconds 20] [--connections 32] [--warmup 3] [--tsx]",
);
const seconds = Number(args.seconds ?? 20);
const connections = Number(args.connections ?? 32);
const warmupSeconds = Number(args.warmup ?? 3);
const viaTsx = args.tsx === true;
const TARGETS = { stream_turns_per_s_ratio: 0.9 };

type Route = "json" | "stream";
const message = (turn: number) => `Question ${turn}: what does plan ${turn} cost per month?`;

/** `connections` clients, each on session `<prefix>-N`, sending turns one after another for `duration` s. */
async function drive(service: Service, route: Route, duration: number, prefix: string) {
  const send = route === "json" ? jsonTurn : streamTurn;
  const deadline = performance.now() + duration * 1000;
  const timings: TurnTiming[] = [];
  let errors = 0;
  const client = async (n: number) => {
    for (let turn = 1; performance.now() < deadline; turn += 1) {
      try {
        timings.push(await send(service.url, `${prefix}-${n}`, message(turn)));
      } catch {
        errors += 1;
      }
    }
  };
  const started = performance.now();
  const cpuBefore = service.cpuMs();
  await Promise.all(Array.from({ length: connections }, (_, n) => client(n)));
  const elapsed = (performance.now() - started) / 1000;
  const turns = timings.length;
  const latency = [...timings.map((t) => t.turn)].sort((a, b) => a - b);
  const p99 = latency[Math.min(latency.length - 1, Math.ceil(0.99 * latency.length) - 1)] ?? 0;
  return {
    turns,
    turns_per_s: Math.round((turns / elapsed) * 10) / 10,
    turns_per_session: Math.round((turns / connections) * 10) / 10,
    latency_ms: { ...stats(latency), p99: Math.round(p99 * 10) / 10 },
    ...(route === "stream" ? { ttft_ms: stats(timings.map((t) => t.ttft)) } : {}),
    cpu_ms_per_turn: turns > 0 ? Math.round(((service.cpuMs() - cpuBefore) / turns) * 10) / 10 : 0,
    errors,
  };
}

async function measure(service: Service, route: Route) {
  if (warmupSeconds > 0) await drive(service, route, warmupSeconds, `warm-up-${route}`);
  return drive(service, route, seconds, `bench-${route}`);
}

if (!viaTsx) execFileSync(process.execPath, [path.resolve("node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], { stdio: "inherit" });
const provider = await startPacedProvider({ ttftMs: 0, tokens: 20, tokenGapMs: 0, embeddingsMs: 0, dimensions: 1536 });
const temp = tempDir("mg-bench-service-");
const ours = await startOurs(temp.dir, { OPENAI_API_KEY: "bench", OPENAI_BASE_URL: provider.baseUrl }, !viaTsx);
const bare = await startBare(temp.dir, provider.baseUrl);
const floor = await startFloor(temp.dir, provider.baseUrl);
try {
  const oursJson = await measure(ours, "json");
  const bareJson = await measure(bare, "json");
  const floorJson = await measure(floor, "json");
  const oursStream = await measure(ours, "stream");
  const bareStream = await measure(bare, "stream");
  const floorStream = await measure(floor, "stream");
  const report = {
    connections,
    seconds,
    processes: 1,
    runtime: viaTsx ? "tsx" : "node dist",
    model: "instant OpenAI-compatible stand-in, 20-token replies",
    targets: TARGETS,
    json: {
      ours: oursJson,
      bare: bareJson,
      six_node_floor: floorJson,
      turns_per_s_ratio: ratio(oursJson.turns_per_s, bareJson.turns_per_s),
      p95_ratio: ratio(oursJson.latency_ms.p95, bareJson.latency_ms.p95),
      floor_turns_per_s_ratio: ratio(floorJson.turns_per_s, bareJson.turns_per_s),
    },
    stream: {
      ours: oursStream,
      bare: bareStream,
      six_node_floor: floorStream,
      turns_per_s_ratio: ratio(oursStream.turns_per_s, bareStream.turns_per_s),
      p95_ratio: ratio(oursStream.latency_ms.p95, bareStream.latency_ms.p95),
      floor_turns_per_s_ratio: ratio(floorStream.turns_per_s, bareStream.turns_per_s),
    },
    ours_stream_vs_json: ratio(oursStream.turns_per_s, oursJson.turns_per_s),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  await Promise.all([ours.stop(), bare.stop(), floor.stop()]);
  await provider.close();
  temp.remove();
}
