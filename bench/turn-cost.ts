/**
 * `npm run bench:turn-cost`: CPU time per turn, in one process, of
 * - `memory_graph`: the real memory graph as the service builds it with no OpenAI settings (a temp
 *   SQLite file, the offline models, the local hashed embedder), driven like the service (32
 *   sessions in flight, --turns each; a warm-up session first);
 * - `langgraph_floor`: LangGraph alone — a StateGraph of six no-op nodes with our state
 *   annotation, the same two conditional edges, our checkpointer on an in-memory SQLite database
 *   and `durability: "exit"` — so the share of a turn that no node or store of ours can remove
 *   is visible;
 * - `langgraph_engine_only`: the same graph with no checkpointer (each invoke starts empty).
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
import { flagsOrExit } from "../src/cli/args.js";
import { SqliteCheckpointer } from "../src/storage/sqlite/checkpointer.js";
import { createStateAnnotation } from "../src/state/state.js";

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

async function memoryGraphCost() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-bench-turn-cost-"));
  const env = loadEnv({ ...process.env, MEMORY_BACKEND: "sqlite", SQLITE_PATH: path.join(dir, "memory.db"), OPENAI_API_KEY: "", OPENAI_BASE_URL: "" });
  const graph = await createMemoryGraph(optionsFromEnv(env));
  const session = async (name: string) => {
    for (let turn = 1; turn <= turnsEach; turn += 1) {
      await graph.runTurn({ tenantId: "bench", userId: `user-${name}`, sessionId: name, message: question(turn) });
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

const engine = await median(() => langGraphFloor(false));
const floor = await median(() => langGraphFloor(true));
const real = await median(memoryGraphCost);
const ceiling = (cpuMs: number) => Math.round((cores * 1000) / cpuMs);
const report = {
  sessions,
  turns_each: turnsEach,
  cores,
  memory_graph: { ...real, ceiling_turns_per_s: ceiling(real.cpu_ms_per_turn) },
  langgraph_floor: { ...floor, ceiling_turns_per_s: ceiling(floor.cpu_ms_per_turn) },
  langgraph_engine_only: { ...engine, ceiling_turns_per_s: ceiling(engine.cpu_ms_per_turn) },
  floor_share: Math.round((floor.cpu_ms_per_turn / real.cpu_ms_per_turn) * 100) / 100,
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
