/**
 * `npm run bench:agent-cost`: what `memoryMiddleware` costs a `createAgent` agent (issue 36), against
 * the same agent without it. Each side is a child process (bench/lib/agent-child.ts): the agent,
 * its model the real `ChatOpenAI` client, its threads in the official `SqliteSaver` on a SQLite
 * file; the `with_memory` side adds the middleware on another SQLite file (memory's classifier and
 * embeddings at the same stand-in). Both talk to one local OpenAI-compatible stand-in
 * (bench/lib/paced-provider.ts) run by this process, whose CPU is not counted.
 * --sessions sessions (each its own user and thread) send --turns turns per phase, the
 * entity-rich messages of bench:stream-cost in rotation, every session of a round at once; the two
 * sides take turns round by round (who goes first alternates). Two phases on the same sessions:
 * - instant: 20-token replies, no pacing: CPU per turn;
 * - paced: 300 ms to the first token, then 20 tokens 15 ms apart: time to the reply's first token
 *   (the agent streamed with streamMode "messages"), p50/p95.
 * A third side, `hooks_only`, is the agent with a middleware of the same shape that does nothing
 * (its hooks and state channel, no memory), so that the gap reads in two parts: what the shape
 * costs LangGraph (`hooks_only_over_without`) and what memory's work adds (`with_memory_over_hooks_only`).
 * `--pause <ms>` waits between rounds, as a user does between messages (default 0: back to back, so
 * a session's next turn may wait for the previous one's work after its reply, which holds the
 * session's lock). With BENCH_CPU_PROF=<dir>, each child writes a V8 CPU profile under <dir>/<side>
 * (see scripts/profile-summary.ts).
 * CPU is the child's `process.cpuUsage()` from the start of one of its rounds to the start of its
 * next, so the middleware's work after a reply (classification, summaries) counts towards the
 * round that left it; the last round's runs until that work is done (`settled()`). Prints JSON:
 * per side CPU per turn (over the phase, and the median of its rounds), first token and full turn
 * p50/p95, and the ratios beside the targets.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { flagsOrExit } from "../src/cli/args.js";
import type { AgentTiming, ChildReply, ChildRequest } from "./lib/agent-child.js";
import { messageOf } from "./lib/entity-messages.js";
import { startPacedProvider, type Pacing, type PacedProvider } from "./lib/paced-provider.js";
import { ratio, stats, tempDir } from "./lib/services.js";

const args = flagsOrExit(
  process.argv.slice(2),
  { sessions: { type: "string" }, turns: { type: "string" }, ttft: { type: "string" }, gap: { type: "string" }, pause: { type: "string" } },
  "usage: npm run bench:agent-cost -- [--sessions 8] [--turns 10] [--ttft 300] [--gap 15] [--pause 0]",
);
const SESSIONS = Number(args.sessions ?? 8);
const TURNS = Number(args.turns ?? 10);
const TTFT = Number(args.ttft ?? 300);
const GAP = Number(args.gap ?? 15);
const PAUSE = Number(args.pause ?? 0);
const TARGETS = { cpu_per_turn_ratio: 1.15, paced_ttft_p95_ratio: 1.05 };

/** One agent in its child process, asked one thing at a time. */
interface Side {
  name: string;
  child: ChildProcess;
  ask<T extends ChildReply["type"]>(request: ChildRequest & { type: T }): Promise<Extract<ChildReply, { type: T }>>;
}

async function startSide(name: string, env: Record<string, string>): Promise<Side> {
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${path.join(process.env.BENCH_CPU_PROF, name)}`] : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", path.join("bench", "lib", "agent-child.ts")], {
    env: { ...process.env, LOG_LEVEL: "error", ...env },
    stdio: ["ignore", 2, "inherit", "ipc"],
  });
  const next = () =>
    new Promise<ChildReply>((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`${name} exited (${code})`));
      child.once("exit", exited);
      child.once("message", (reply) => {
        child.off("exit", exited);
        resolve(reply as ChildReply);
      });
    });
  await next();
  return {
    name,
    child,
    ask: async (request) => {
      const reply = next();
      child.send(request);
      return (await reply) as never;
    },
  };
}

/** What a phase measured of one side. */
interface Measured {
  cpu_ms_per_turn: number;
  cpu_ms_per_turn_median_round: number;
  tokens_per_turn: number;
  ttft_ms: ReturnType<typeof stats>;
  turn_ms: ReturnType<typeof stats>;
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs TURNS rounds on every side, interleaved (who goes first rotates), and measures each. */
async function phase(name: string, pacing: Omit<Pacing, "embeddingsMs" | "dimensions">, sides: Side[], provider: PacedProvider, firstTurn: number) {
  Object.assign(provider.pacing, pacing);
  const starts = sides.map(() => [] as number[]);
  const timings = sides.map(() => [] as AgentTiming[]);
  for (let turn = firstTurn; turn < firstTurn + TURNS; turn += 1) {
    for (const k of sides.keys()) {
      const i = (k + turn) % sides.length;
      const reply = await sides[i]!.ask({ type: "round", prefix: "s", sessions: SESSIONS, message: messageOf(turn) });
      starts[i]!.push(reply.cpuMs);
      timings[i]!.push(...reply.timings);
    }
    if (PAUSE > 0) await sleep(PAUSE);
  }
  const ends = await Promise.all(sides.map((side) => side.ask({ type: "cpu" })));
  const of = (i: number): Measured => {
    const bounds = [...starts[i]!, ends[i]!.cpuMs];
    const rounds = bounds.slice(1).map((end, r) => (end - bounds[r]!) / SESSIONS);
    return {
      cpu_ms_per_turn: round1((bounds.at(-1)! - bounds[0]!) / (SESSIONS * TURNS)),
      cpu_ms_per_turn_median_round: round1(median(rounds)),
      tokens_per_turn: Math.round(timings[i]!.reduce((sum, t) => sum + t.tokens, 0) / (SESSIONS * TURNS)),
      ttft_ms: stats(timings[i]!.map((t) => t.ttft)),
      turn_ms: stats(timings[i]!.map((t) => t.turn)),
    };
  };
  const [withMemory, without, hooks] = [of(0), of(1), of(2)];
  return {
    phase: name,
    pacing,
    with_memory: withMemory,
    without_memory: without,
    hooks_only: hooks,
    cpu_per_turn_ratio: ratio(withMemory.cpu_ms_per_turn, without.cpu_ms_per_turn),
    cpu_per_turn_median_round_ratio: ratio(withMemory.cpu_ms_per_turn_median_round, without.cpu_ms_per_turn_median_round),
    ttft_p50_ratio: ratio(withMemory.ttft_ms.p50, without.ttft_ms.p50),
    ttft_p95_ratio: ratio(withMemory.ttft_ms.p95, without.ttft_ms.p95),
    turn_p95_ratio: ratio(withMemory.turn_ms.p95, without.turn_ms.p95),
    hooks_only_over_without: ratio(hooks.cpu_ms_per_turn, without.cpu_ms_per_turn),
    with_memory_over_hooks_only: ratio(withMemory.cpu_ms_per_turn, hooks.cpu_ms_per_turn),
  };
}

/** Memory's own model calls per turn (classification, summaries, embeddings), from what the stand-in tallied. */
function memoryCallsPerTurn(provider: PacedProvider, turns: number) {
  const tally = provider.tokens.get("with_memory-memory");
  if (!tally) return {};
  return Object.fromEntries(Object.entries(tally).map(([kind, t]) => [kind, round1(t.calls / turns)]));
}

const provider = await startPacedProvider({ ttftMs: 0, tokens: 20, tokenGapMs: 0, embeddingsMs: 0, dimensions: 1536 });
const temp = tempDir("mg-bench-agent-cost-");
const modelEnv = (key: string) => ({ OPENAI_API_KEY: key, OPENAI_BASE_URL: provider.baseUrl });
const sides = await Promise.all([
  startSide("with_memory", { ...modelEnv("with_memory"), SQLITE_PATH: path.join(temp.dir, "with-threads.db"), MEMORY_PATH: path.join(temp.dir, "memory.db") }),
  startSide("without_memory", { ...modelEnv("without_memory"), SQLITE_PATH: path.join(temp.dir, "without-threads.db") }),
  startSide("hooks_only", { ...modelEnv("hooks_only"), SQLITE_PATH: path.join(temp.dir, "hooks-threads.db"), HOOKS_ONLY: "1" }),
]);
try {
  for (const side of sides) for (let turn = 0; turn < 2; turn += 1) await side.ask({ type: "round", prefix: "warm-up-", sessions: SESSIONS, message: messageOf(turn) });
  await Promise.all(sides.map((side) => side.ask({ type: "cpu" })));
  provider.tokens.clear();
  const instant = await phase("instant", { ttftMs: 0, tokens: 20, tokenGapMs: 0 }, sides, provider, 1);
  const calls = memoryCallsPerTurn(provider, SESSIONS * TURNS);
  const paced = await phase("paced", { ttftMs: TTFT, tokens: 20, tokenGapMs: GAP }, sides, provider, 1 + TURNS);
  const report = {
    sessions: SESSIONS,
    turns_per_phase: TURNS,
    pause_ms: PAUSE,
    backend: "sqlite (temp files)",
    model: "ChatOpenAI at the paced stand-in",
    targets: TARGETS,
    phases: [instant, paced],
    memory_model_calls_per_turn_instant: calls,
    met: {
      cpu_per_turn_ratio: instant.cpu_per_turn_ratio <= TARGETS.cpu_per_turn_ratio,
      paced_ttft_p95_ratio: paced.ttft_p95_ratio <= TARGETS.paced_ttft_p95_ratio,
    },
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  const stopped = (side: Side) =>
    new Promise((resolve) => {
      side.child.once("exit", resolve);
      side.child.send({ type: "stop" } satisfies ChildRequest);
    });
  await Promise.all(sides.map(stopped));
  await provider.close();
  temp.remove();
}
