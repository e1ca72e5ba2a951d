/**
 * `npm run bench:stream-cost`: the CPU a turn costs the service, against a bare LangGraph chatbot
 * (one model node, the official SqliteSaver, streamMode "messages", behind the same Hono/SSE
 * surface: bench/lib/bare-chatbot-server.ts). Both run as child processes on SQLite files and talk
 * to one local OpenAI-compatible stand-in (bench/lib/paced-provider.ts) run by this process, whose
 * CPU is not counted. Three phases, on the same sessions (--sessions in parallel, --turns each per
 * phase, interleaved by round: each service in turn, round after round, so summaries happen as in real sessions):
 * - instant: 20-token replies with no pacing;
 * - paced 20 / paced 150: 300 ms to the first token, then 20 or 150 tokens 15 ms apart.
 * CPU comes from /proc (utime + stime of each service process) over each phase. Per streamed
 * token: the extra CPU of a 150-token turn over a 20-token one, divided by the 130 extra tokens.
 * Messages rotate through entity-rich English and romanised Hindi. Prints JSON with the ratios
 * (ours / bare: CPU per turn, first token and full turn p95, the turn ending at the `result` event)
 * beside the targets.
 * Two more services run in the same rounds, so that the gap can be read part by part:
 * - `six_node_floor`: the bare chatbot in our graph's shape (six nodes, the classification's model
 *   call each turn, one checkpoint a turn, nothing stored: `startFloor`);
 * - `ours_memory_off`: a second memory-graph service whose turns say `use_memory: false` and
 *   `remember: false` (no recall, nothing written to long-term memory): our service without its
 *   memory work.
 * Each phase prints `floor_over_bare` (what the shape costs), `memory_off_over_floor` (what our
 * service adds around the shape) and `ours_over_memory_off` (what recall and memory writes add).
 * With `--baseline <checkout>` (another commit's work tree, e.g. from `git worktree add`, with its
 * node_modules), that commit's service runs in the same rounds too (`ours_baseline`), and each phase
 * prints `ours_over_baseline`: a change measured against what it changed, side by side.
 * `--baseline-env KEY=VALUE,...` sets variables of the baseline's service: with `--baseline .`, the
 * same code under another setting (e.g. `CLASSIFY_POLICY=model`, the classification asked every turn).
 * Model tokens: each service calls the stand-in with its own API key (`modelAt`), and the stand-in
 * tallies the usage its answers report by key and kind of call. Each side prints
 * `model_tokens_per_turn` over the phase (its turns and what they left, as for CPU): per kind —
 * `reply` (the streamed answer), `tool_call` (the classification), `text` (summaries, titles),
 * `embeddings` — calls, input and output tokens per turn, and their total; each phase prints
 * `classification_tokens_ours_over_floor` (tool-call tokens per turn, ours / six_node_floor).
 * The messages rotate through five texts and the stand-in's replies are the same words every time,
 * so most of our vectors come from the service's cache (`ReusingEmbeddings`): its embeddings
 * figure is a floor, where distinct messages cost two calls a turn (the message and the reply).
 */
import path from "node:path";
import { flagsOrExit } from "../src/cli/args.js";
import { messageOf } from "./lib/entity-messages.js";
import { startPacedProvider, type CallKind, type Pacing, type PacedProvider, type TokenTally } from "./lib/paced-provider.js";
import { modelAt, ratio, startBare, startFloor, startOurs, startService, stats, streamTurn, tempDir, type Service, type TurnTiming } from "./lib/services.js";

const args = flagsOrExit(
  process.argv.slice(2),
  { sessions: { type: "string" }, turns: { type: "string" }, gap: { type: "string" }, ttft: { type: "string" }, compiled: { type: "boolean" }, baseline: { type: "string" }, "baseline-env": { type: "string" } },
  "usage: npm run bench:stream-cost -- [--sessions 8] [--turns 10] [--ttft 300] [--gap 15] [--compiled] [--baseline <checkout>] [--baseline-env KEY=VALUE,...]",
);
const SESSIONS = Number(args.sessions ?? 8);
const TURNS = Number(args.turns ?? 10);
const TTFT = Number(args.ttft ?? 300);
const GAP = Number(args.gap ?? 15);
const TARGETS = { cpu_per_turn_ratio: 1.3, cpu_per_token_ratio: 1.2, paced_20_turn_p95_ratio: 1.15 };

const message = messageOf;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The monotonic clock in µs: the clock of V8's CPU profiles, so a profile can be cut at a phase's bounds. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Model tokens per turn: per kind of call (calls, input and output tokens), and in all. */
type ModelTokens = Record<CallKind, TokenTally> & { total: { input: number; output: number; total: number } };

/** What a phase measured of one service. */
interface Measured {
  cpu_ms_per_turn: number;
  /** Reply tokens the client received (SSE `token` events). */
  tokens_per_turn: number;
  model_tokens_per_turn: ModelTokens;
  ttft_ms: ReturnType<typeof stats>;
  turn_ms: ReturnType<typeof stats>;
}

interface Side {
  /** Its name in the report, and the API key it calls the stand-in with. */
  name: string;
  service: Service;
  /** Fields every turn sent to this service carries. */
  fields?: Record<string, unknown>;
  cpuMs: number;
  timings: TurnTiming[];
}

/** One round: every session sends its next turn at once; resolves when all are answered. */
async function round(side: Side, prefix: string, turn: number): Promise<void> {
  const before = side.service.cpuMs();
  const timings = await Promise.all(Array.from({ length: SESSIONS }, (_, s) => streamTurn(side.service.url, `${prefix}${s}`, message(turn), side.fields)));
  side.timings.push(...timings);
  side.cpuMs += side.service.cpuMs() - before;
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const KINDS: CallKind[] = ["reply", "tool_call", "text", "embeddings"];

/** `caller`'s model tokens over `turns` turns, per turn, from what the stand-in tallied. */
function modelTokensPerTurn(provider: PacedProvider, caller: string, turns: number): ModelTokens {
  const tallies = provider.tokens.get(caller);
  const of = (kind: CallKind): TokenTally => {
    const tally = tallies?.[kind] ?? { calls: 0, input: 0, output: 0 };
    return { calls: round1(tally.calls / turns), input: round1(tally.input / turns), output: round1(tally.output / turns) };
  };
  const kinds = Object.fromEntries(KINDS.map((kind) => [kind, of(kind)])) as Record<CallKind, TokenTally>;
  const input = round1(KINDS.reduce((sum, kind) => sum + (tallies?.[kind].input ?? 0), 0) / turns);
  const output = round1(KINDS.reduce((sum, kind) => sum + (tallies?.[kind].output ?? 0), 0) / turns);
  return { ...kinds, total: { input, output, total: round1(input + output) } };
}

/** Classification (tool-call) tokens per turn, in and out. */
const classificationTokens = (measured: Measured) => measured.model_tokens_per_turn.tool_call.input + measured.model_tokens_per_turn.tool_call.output;

async function phase(name: string, pacing: Omit<Pacing, "embeddingsMs" | "dimensions">, sides: Side[], provider: PacedProvider, firstTurn: number) {
  Object.assign(provider.pacing, pacing);
  provider.tokens.clear();
  for (const side of sides) {
    side.cpuMs = 0;
    side.timings = [];
  }
  const startedUs = monotonicUs();
  for (let turn = firstTurn; turn < firstTurn + TURNS; turn += 1) {
    for (const side of sides) await round(side, "s", turn);
  }
  // Work a turn leaves after its answer (a summary, pruning) counts towards the phase.
  const settle = sides.map((side) => side.service.cpuMs());
  await sleep(1500);
  sides.forEach((side, i) => (side.cpuMs += side.service.cpuMs() - settle[i]!));
  const window_us = { from: startedUs, to: monotonicUs() };
  const turns = SESSIONS * TURNS;
  const of = (side: Side): Measured => ({
    cpu_ms_per_turn: round1(side.cpuMs / turns),
    tokens_per_turn: Math.round(side.timings.reduce((sum, t) => sum + t.tokens, 0) / turns),
    model_tokens_per_turn: modelTokensPerTurn(provider, side.name, turns),
    ttft_ms: stats(side.timings.map((t) => t.ttft)),
    turn_ms: stats(side.timings.map((t) => t.turn)),
  });
  const [ours, bare, floor, memoryOff, baseline] = sides.map(of) as [Measured, Measured, Measured, Measured, Measured | undefined];
  return {
    phase: name,
    pacing,
    ours,
    bare,
    six_node_floor: floor,
    ours_memory_off: memoryOff,
    ...(baseline ? { ours_baseline: baseline, ours_over_baseline: ratio(ours.cpu_ms_per_turn, baseline.cpu_ms_per_turn) } : {}),
    cpu_per_turn_ratio: ratio(ours.cpu_ms_per_turn, bare.cpu_ms_per_turn),
    floor_over_bare: ratio(floor.cpu_ms_per_turn, bare.cpu_ms_per_turn),
    memory_off_over_floor: ratio(memoryOff.cpu_ms_per_turn, floor.cpu_ms_per_turn),
    ours_over_memory_off: ratio(ours.cpu_ms_per_turn, memoryOff.cpu_ms_per_turn),
    ttft_p95_ratio: ratio(ours.ttft_ms.p95, bare.ttft_ms.p95),
    turn_p95_ratio: ratio(ours.turn_ms.p95, bare.turn_ms.p95),
    classification_tokens_ours_over_floor: ratio(classificationTokens(ours), classificationTokens(floor)),
    // Where the phase starts and ends on the monotonic clock (for scripts/profile-summary.ts --from/--to).
    ...(process.env.BENCH_CPU_PROF ? { window_us } : {}),
  };
}

const provider = await startPacedProvider({ ttftMs: 0, tokens: 20, tokenGapMs: 0, embeddingsMs: 0, dimensions: 1536 });
const temp = tempDir("mg-bench-stream-cost-");
const ours = await startOurs(temp.dir, modelAt(provider.baseUrl, "ours"), args.compiled === true);
const bare = await startBare(temp.dir, provider.baseUrl);
const floor = await startFloor(temp.dir, provider.baseUrl);
const memoryOff = await startOurs(temp.dir, modelAt(provider.baseUrl, "ours_memory_off"), args.compiled === true, "ours_memory_off");
const baseline = args.baseline
  ? await startService("ours_baseline", path.resolve(args.baseline, "src/cli/start.ts"), {
      MEMORY_BACKEND: "sqlite",
      SQLITE_PATH: path.join(temp.dir, "ours_baseline.db"),
      ...modelAt(provider.baseUrl, "ours_baseline"),
      ...Object.fromEntries((args["baseline-env"] ?? "").split(",").filter(Boolean).map((pair) => pair.split("=", 2) as [string, string])),
    })
  : undefined;
try {
  const sideOf = (name: string, service: Service, fields?: Side["fields"]): Side => ({ name, service, fields, cpuMs: 0, timings: [] });
  const sides = [
    sideOf("ours", ours),
    sideOf("bare", bare),
    sideOf("six_node_floor", floor),
    sideOf("ours_memory_off", memoryOff, { use_memory: false, remember: false }),
    ...(baseline ? [sideOf("ours_baseline", baseline)] : []),
  ];
  for (const side of sides) for (let turn = 0; turn < 2; turn += 1) await round(side, "warm-up-", turn);
  const instant = await phase("instant", { ttftMs: 0, tokens: 20, tokenGapMs: 0 }, sides, provider, 1);
  const short = await phase("paced_20", { ttftMs: TTFT, tokens: 20, tokenGapMs: GAP }, sides, provider, 1 + TURNS);
  const long = await phase("paced_150", { ttftMs: TTFT, tokens: 150, tokenGapMs: GAP }, sides, provider, 1 + 2 * TURNS);
  const perToken = (side: "ours" | "bare" | "six_node_floor" | "ours_memory_off") => Math.round(((long[side].cpu_ms_per_turn - short[side].cpu_ms_per_turn) / (long[side].tokens_per_turn - short[side].tokens_per_turn)) * 1000) / 1000;
  const report = {
    sessions: SESSIONS,
    turns_per_phase: TURNS,
    targets: TARGETS,
    phases: [instant, short, long],
    cpu_ms_per_streamed_token: { ours: perToken("ours"), bare: perToken("bare"), six_node_floor: perToken("six_node_floor"), ours_memory_off: perToken("ours_memory_off"), ratio: ratio(perToken("ours"), perToken("bare")) },
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  await Promise.all([ours.stop(), bare.stop(), floor.stop(), memoryOff.stop(), baseline?.stop()]);
  await provider.close();
  temp.remove();
}
