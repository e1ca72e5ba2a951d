/**
 * `npx tsx bench/turn-storage.ts`: what a turn does to storage on the SQLite default, with a model
 * configured (the stand-in provider of bench:latency, unpaced, 1,536-dimension embeddings) and the
 * facade's streamed turn, as the service runs it. Counts, per turn after 2 warm-up turns and split
 * by node (the LangGraph node a call ran in, else "runner": the turn runner and its upkeep):
 * - `batches`: `BaseStore.batch` calls on the SQLite store;
 * - `write_tx`: SQLite write transactions (a `db.transaction` that wrote, or a writing statement
 *   run on its own, as the turn and user locks' upserts are); `read_tx`: transactions that only read;
 * - `checkpoint_puts` / `checkpoint_writes`: the checkpointer's checkpoints and pending-writes calls.
 * Prints JSON: the totals per turn (mean over the measured turns) and per node, and each turn's
 * totals (a turn that made a summary counts its upkeep too). Flags: --turns (default 10),
 * --summary-interval (default: the library's), --trace (each counted call of the last turn, with
 * its node and the first frame of src/ outside storage that made it, on stderr).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { createMemoryGraph } from "../src/app/create-memory-graph.js";
import { flagsOrExit } from "../src/cli/args.js";
import { setLogLevel } from "../src/logger.js";
import { SqliteStore } from "../src/storage/sqlite/store.js";
import { SqliteCheckpointer } from "../src/storage/sqlite/checkpointer.js";
import { startPacedProvider } from "./lib/paced-provider.js";

const args = flagsOrExit(process.argv.slice(2), { turns: { type: "string" }, "summary-interval": { type: "string" }, trace: { type: "boolean" } }, "usage: npx tsx bench/turn-storage.ts [--turns 10] [--summary-interval N] [--trace]");
const TURNS = Number(args.turns ?? 10);
const WARMUP = 2;
setLogLevel("silent");
// Deep enough for --trace to reach src/ past LangGraph's and the guard's frames.
Error.stackTraceLimit = 40;

const KINDS = ["batches", "write_tx", "read_tx", "checkpoint_puts", "checkpoint_writes"] as const;
type Kind = (typeof KINDS)[number];
type Counts = Record<Kind, number>;
const zero = (): Counts => ({ batches: 0, write_tx: 0, read_tx: 0, checkpoint_puts: 0, checkpoint_writes: 0 });
let current: Record<string, Counts> = {};

/** The node a storage call runs in: LangGraph keeps each node's config in async local storage. */
function nodeNow(): string {
  const config = AsyncLocalStorageProviderSingleton.getRunnableConfig() as { metadata?: { langgraph_node?: string } } | undefined;
  return config?.metadata?.langgraph_node ?? "runner";
}
/** With --trace, every counted call of the last turn: its node, kind and where in src/ it came from. */
const trace: string[] = [];
function siteOf(): string {
  const frames = (new Error().stack ?? "").split("\n").slice(1);
  const ours = frames.find((f) => f.includes("/src/") && !f.includes("node_modules") && !f.includes("/src/storage/") && !f.includes("/src/resilience/") && !f.includes("/src/telemetry.ts"));
  return ours?.trim().replace(/^at /, "").replace(/\(.*\/src\//, "(") ?? "?";
}
const count = (kind: Kind, detail = "") => {
  const node = nodeNow();
  (current[node] ??= zero())[kind] += 1;
  if (args.trace) trace.push(`${node} ${kind} ${siteOf()} ${detail}`);
};

// Store batches and checkpointer calls, on the classes the SQLite backend opens.
type Methods = Record<string, (...a: unknown[]) => Promise<unknown>>;
const counted: [Methods, string, Kind][] = [
  [SqliteStore.prototype as unknown as Methods, "batch", "batches"],
  [SqliteCheckpointer.prototype as unknown as Methods, "storeCheckpoint", "checkpoint_puts"],
  [SqliteCheckpointer.prototype as unknown as Methods, "storeWrites", "checkpoint_writes"],
];
for (const [proto, method, kind] of counted) {
  const original = proto[method]!;
  proto[method] = function (this: unknown, ...a: unknown[]) {
    count(kind);
    return original.apply(this, a);
  };
}

// Transactions, from the statements better-sqlite3 runs (its transactions run BEGIN and COMMIT as
// statements too): one from BEGIN to COMMIT, a write transaction when a statement that writes ran
// in it; a statement that writes run outside one is a write transaction of its own.
let wroteInTransaction = false;
const scratch = new Database(":memory:");
const statementProto = Object.getPrototypeOf(scratch.prepare("SELECT 1")) as Record<"run" | "get" | "all", (...a: unknown[]) => unknown>;
scratch.close();
for (const method of ["run", "get", "all"] as const) {
  const original = statementProto[method];
  statementProto[method] = function (this: Database.Statement, ...a: unknown[]) {
    if (/^BEGIN\b/i.test(this.source)) wroteInTransaction = false;
    else if (/^COMMIT\b/i.test(this.source)) count(wroteInTransaction ? "write_tx" : "read_tx");
    else if (!this.readonly && !/^(ROLLBACK|SAVEPOINT|RELEASE)\b/i.test(this.source)) {
      if (this.database.inTransaction) wroteInTransaction = true;
      else count("write_tx", this.source.slice(0, 40));
    }
    return original.apply(this, a);
  };
}

const MESSAGES = [
  "Bharat ka balance kitna hai?",
  "Usko 500 add karo",
  "My sister Priya moved to Pune last month, send her the new card",
  "Order 4503 arrived late and the box was damaged, what can you do?",
  "Kal Mumbai mein meeting hai, 3 baje remind karna",
];

const provider = await startPacedProvider({ ttftMs: 0, tokens: 20, tokenGapMs: 0, embeddingsMs: 0, dimensions: 1536 });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-turn-storage-"));
const interval = args["summary-interval"] ? { summaryInterval: Number(args["summary-interval"]) } : {};
const graph = await createMemoryGraph({
  sqlitePath: path.join(dir, "storage.db"),
  openai: { apiKey: "bench", baseUrl: provider.baseUrl, model: "paced", timeoutMs: 30_000 },
  limits: interval,
  logger: false,
});
const turns: Record<string, Counts>[] = [];
try {
  for (let i = 0; i < WARMUP + TURNS; i++) {
    current = {};
    trace.length = 0;
    await graph.streamTurn({ tenantId: "bench", userId: "u1", sessionId: "s1", message: MESSAGES[i % MESSAGES.length] }, () => undefined);
    await graph.settled();
    if (i >= WARMUP) turns.push(current);
  }
} finally {
  await graph.close();
  await provider.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

const totalOf = (byNode: Record<string, Counts>): Counts => {
  const total = zero();
  for (const counts of Object.values(byNode)) for (const kind of KINDS) total[kind] += counts[kind];
  return total;
};
const mean = (values: Counts[]): Counts => {
  const sum = zero();
  for (const counts of values) for (const kind of KINDS) sum[kind] += counts[kind] / values.length;
  for (const kind of KINDS) sum[kind] = Math.round(sum[kind] * 100) / 100;
  return sum;
};
const nodes = [...new Set(turns.flatMap((t) => Object.keys(t)))];
const perNode = Object.fromEntries(nodes.map((node) => [node, mean(turns.map((t) => t[node] ?? zero()))]));
if (args.trace) console.error(trace.join("\n"));
console.log(JSON.stringify({ turns: TURNS, per_turn: mean(turns.map(totalOf)), per_node: perNode, each_turn: turns.map(totalOf) }, null, 2));
