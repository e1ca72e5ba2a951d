/**
 * `npm run bench:turn-cost`: CPU time per turn, in one process, of
 * - `memory_graph`: the real memory graph as the service builds it with no OpenAI settings (a temp
 *   SQLite file, the offline models, the local hashed embedder), driven like the service (32
 *   sessions in flight, --turns each; a warm-up session first);
 * - `langgraph_floor`: LangGraph alone — a StateGraph of six no-op nodes with our state
 *   annotation, the same two conditional edges, our checkpointer on an in-memory SQLite database
 *   and `durability: "exit"` — so the share of a turn that no node or store of ours can remove
 *   is visible;
 * - `langgraph_engine_only`: the same graph with no checkpointer (each invoke starts empty);
 * - the memory switches, interleaved run by run so that the machine's load falls on them alike:
 *   `memory_graph_needs_memory` (a question about the user: need_memory true, every recall part),
 *   `memory_graph_use_memory_false` (the same questions with `useMemory: false`: no recall, no
 *   memory block) and `memory_graph_standalone` (a question that stands on its own: need_memory
 *   false, no similar-message search); `use_memory_false_ratio` and `standalone_ratio` are their CPU
 *   per turn over `memory_graph_needs_memory`'s.
 * Prints JSON: CPU ms per turn for each (the median of --repeat runs, default 3, with every run's
 * figure), and the turns/s each would allow at full use of every core (a ceiling: it leaves out
 * HTTP, the load generator and contention).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { END, START, StateGraph } from "@langchain/langgraph";
import Database from "better-sqlite3";
import { createMemoryGraph } from "../src/app/create-memory-graph.js";
import { optionsFromEnv } from "../src/app/options-from-env.js";
import { loadEnv } from "../src/config.js";
import { jsonLogger } from "../src/logger.js";
import { flagsOrExit } from "../src/cli/args.js";
import { SqliteCheckpointer } from "../src/storage/sqlite/checkpointer.js";
import { createStateAnnotation } from "../src/graph/state/state.js";

const args = flagsOrExit(
  process.argv.slice(2),
  { sessions: { type: "string" }, turns: { type: "string" }, repeat: { type: "string" } },
  "usage: npm run bench:turn-cost -- [--sessions N] [--turns N] [--repeat N]",
);
const sessions = Number(args.sessions ?? 32);
const turnsEach = Number(args.turns ?? 30);
const repeats = Number(args.repeat ?? 3);
const cores = os.availableParallelism();

/** CPU ms (user + system) per turn of `run`, which drives `turns` turns. */
async function cpuPerTurn(turns: number, run: () => Promise<void>): Promise<{ cpu_ms_per_turn: number; wall_ms: number }> {
  const started = performance.now();
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return { cpu_ms_per_turn: Math.round(((used.user + used.system) / 1000 / turns) * 100) / 100, wall_ms: Math.round(performance.now() - started) };
}

const question = (turn: number) => `Question ${turn}: what does plan ${turn} cost per month?`;
const aboutUser = (turn: number) => `Question ${turn}: what did my plan ${turn} cost per month?`;
const standalone = (turn: number) => `Question ${turn}: how does compound interest work for ${turn} years?`;

async function memoryGraphCost(ask: (turn: number) => string = question, switches: { useMemory?: boolean } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-bench-turn-cost-"));
  const env = loadEnv({ ...process.env, MEMORY_BACKEND: "sqlite", SQLITE_PATH: path.join(dir, "memory.db"), OPENAI_API_KEY: "", OPENAI_BASE_URL: "" });
  // The service's log lines are written (their cost counts) to stderr, so stdout holds the JSON alone.
  const graph = await createMemoryGraph({ ...optionsFromEnv(env), logger: jsonLogger({ write: (line) => process.stderr.write(`${line}\n`) }) });
  const session = async (name: string) => {
    for (let turn = 1; turn <= turnsEach; turn += 1) {
      await graph.runTurn({ tenantId: "bench", userId: `user-${name}`, sessionId: name, message: ask(turn), ...switches });
    }
  };
  await session("warm-up");
  const cost = await cpuPerTurn(sessions * turnsEach, async () => {
    await Promise.all(Array.from({ length: sessions }, (_, i) => session(`s${i}`)));
  });
  await graph.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return cost;
}

async function langGraphFloor(withCheckpointer: boolean) {
  const noop = (name: string) => async () => ({ llmText: name });
  const app = new StateGraph(createStateAnnotation())
    .addNode("ingest_prompt", async () => ({ messages: [new HumanMessage("question")], status: "OK" as const }))
    .addNode("recall", noop("recall"))
    .addNode("classify_event", noop("classify_event"))
    .addNode("call_model", async () => ({ messages: [new AIMessage("answer")] }))
    .addNode("build_candidate", noop("build_candidate"))
    .addNode("summarize", noop("summarize"))
    .addEdge(START, "ingest_prompt")
    .addConditionalEdges("ingest_prompt", (state) => (state.status === "SKIP" ? END : "recall"), ["recall", END])
    .addEdge("recall", "classify_event")
    .addEdge("classify_event", "call_model")
    .addEdge("call_model", "build_candidate")
    .addConditionalEdges("build_candidate", (state) => (state.messages.length % 20 === 0 ? "summarize" : END), ["summarize", END])
    .addEdge("summarize", END)
    .compile({ checkpointer: withCheckpointer ? new SqliteCheckpointer(new Database(":memory:")) : undefined });
  const session = async (name: string) => {
    for (let turn = 1; turn <= turnsEach; turn += 1) {
      await app.invoke({ input: null }, withCheckpointer ? { configurable: { thread_id: name }, durability: "exit" } : {});
    }
  };
  await session("warm-up");
  return cpuPerTurn(sessions * turnsEach, async () => {
    await Promise.all(Array.from({ length: sessions }, (_, i) => session(`s${i}`)));
  });
}

type Cost = { cpu_ms_per_turn: number; wall_ms: number };

/** The run with the median CPU per turn of `repeats` runs (a fresh graph each time). */
async function median(measure: () => Promise<Cost>): Promise<Cost & { runs_cpu_ms_per_turn: number[] }> {
  const runs: Cost[] = [];
  for (let i = 0; i < repeats; i += 1) runs.push(await measure());
  const ordered = [...runs].sort((a, b) => a.cpu_ms_per_turn - b.cpu_ms_per_turn);
  return { ...ordered[Math.floor((ordered.length - 1) / 2)]!, runs_cpu_ms_per_turn: runs.map((r) => r.cpu_ms_per_turn) };
}

/** The medians of `variants`, measured in turn: one run of each, then the next round. */
async function interleaved<K extends string>(variants: Record<K, () => Promise<Cost>>): Promise<Record<K, Cost & { runs_cpu_ms_per_turn: number[] }>> {
  const runs = Object.fromEntries(Object.keys(variants).map((key) => [key, [] as Cost[]])) as Record<K, Cost[]>;
  for (let i = 0; i < repeats; i += 1) for (const key of Object.keys(variants) as K[]) runs[key].push(await variants[key]());
  const medianOf = (list: Cost[]) => ({ ...[...list].sort((a, b) => a.cpu_ms_per_turn - b.cpu_ms_per_turn)[Math.floor((list.length - 1) / 2)]!, runs_cpu_ms_per_turn: list.map((r) => r.cpu_ms_per_turn) });
  return Object.fromEntries((Object.keys(runs) as K[]).map((key) => [key, medianOf(runs[key])])) as Record<K, Cost & { runs_cpu_ms_per_turn: number[] }>;
}

const engine = await median(() => langGraphFloor(false));
const floor = await median(() => langGraphFloor(true));
const real = await median(memoryGraphCost);
const switches = await interleaved({
  needs: () => memoryGraphCost(aboutUser),
  off: () => memoryGraphCost(aboutUser, { useMemory: false }),
  standalone: () => memoryGraphCost(standalone),
});
const ceiling = (cpuMs: number) => Math.round((cores * 1000) / cpuMs);
const ratio = (a: Cost, b: Cost) => Math.round((a.cpu_ms_per_turn / b.cpu_ms_per_turn) * 100) / 100;
const report = {
  sessions,
  turns_each: turnsEach,
  cores,
  memory_graph: { ...real, ceiling_turns_per_s: ceiling(real.cpu_ms_per_turn) },
  langgraph_floor: { ...floor, ceiling_turns_per_s: ceiling(floor.cpu_ms_per_turn) },
  langgraph_engine_only: { ...engine, ceiling_turns_per_s: ceiling(engine.cpu_ms_per_turn) },
  floor_share: ratio(floor, real),
  memory_graph_needs_memory: switches.needs,
  memory_graph_use_memory_false: switches.off,
  memory_graph_standalone: switches.standalone,
  use_memory_false_ratio: ratio(switches.off, switches.needs),
  standalone_ratio: ratio(switches.standalone, switches.needs),
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
