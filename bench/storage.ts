/**
 * `npm run bench:storage`: 1,000 turns on one session with a fixed fake model, our SQLite backend
 * against a bare LangGraph graph (MessagesAnnotation + the official SqliteSaver) doing the same
 * turns, in one run; then ours on Postgres when DATABASE_URL (or --postgres URL) answers.
 * Then ours (SQLite) again with vectors: 1,536-dimension embeddings from a local OpenAI-compatible
 * stand-in, through the OpenAI client (`ours_embeddings`, with the bytes its vectors take).
 * Prints one JSON object: {"ours": {...}, "bare": {...}, "ours_embeddings": {...}, "ours_postgres": {...}, "targets": {...}}.
 * Options: --turns N (default 1000; the windows are turns 1–100 and the last 100).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { flagsOrExit } from "../src/cli/args.js";
import { createMemoryGraph, type MemoryGraphOptions } from "../src/app/create-memory-graph.js";
import { createEmbeddings } from "../src/models/embeddings.js";
import { setLogLevel } from "../src/logger.js";
import { PostgresCheckpointer } from "../src/storage/postgres/checkpointer.js";
import { PostgresStore } from "../src/storage/postgres/store.js";
import { postgresGcTarget } from "../src/storage/postgres/gc-target.js";
import { startPacedProvider } from "./lib/paced-provider.js";

const args = flagsOrExit(process.argv.slice(2), { turns: { type: "string" }, postgres: { type: "string" } }, "usage: npm run bench:storage -- [--turns N] [--postgres URL]");
const TURNS = Number(args.turns ?? 1000);
const EMBEDDING_DIMENSIONS = 1536;
const REPLY = "Thanks for asking. Your order is being prepared and should ship within two business days; I will keep you posted.";
const scope = { tenantId: "bench", userId: "u1", sessionId: "s1" };
const prompt = (i: number) => `Turn ${i}: could you tell me when order ${1000 + i} ships and what the delivery costs to Chiang Mai?`;
const fakeModel = () => new FakeListChatModel({ responses: [REPLY] });

interface Figures {
  db_bytes_at_100: number;
  db_bytes_at_1000: number;
  p50_ms_turns_1_100: number;
  p95_ms_turns_1_100: number;
  p50_ms_turns_901_1000: number;
  p95_ms_turns_901_1000: number;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
  return Math.round(at * 100) / 100;
}

/** Runs TURNS turns, timing each, and measures the database after turn 100 and after the last. */
async function measure(turn: (i: number) => Promise<unknown>, bytes: () => Promise<number>): Promise<Figures> {
  const times: number[] = [];
  let at100 = 0;
  for (let i = 1; i <= TURNS; i += 1) {
    const started = performance.now();
    await turn(i);
    times.push(performance.now() - started);
    if (i === 100) at100 = await bytes();
  }
  const first = times.slice(0, 100);
  const last = times.slice(-100);
  return {
    db_bytes_at_100: at100,
    db_bytes_at_1000: await bytes(),
    p50_ms_turns_1_100: percentile(first, 50),
    p95_ms_turns_1_100: percentile(first, 95),
    p50_ms_turns_901_1000: percentile(last, 50),
    p95_ms_turns_901_1000: percentile(last, 95),
  };
}

/** The size of a SQLite database after folding its WAL into the main file. */
function sqliteBytes(file: string): number {
  const db = new Database(file);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  const wal = `${file}-wal`;
  return fs.statSync(file).size + (fs.existsSync(wal) ? fs.statSync(wal).size : 0);
}

const ourOptions: MemoryGraphOptions = { chatModel: fakeModel(), classifierModel: null, summaryModel: null, modelName: "fake" };

async function ours(dir: string): Promise<Figures> {
  const file = path.join(dir, "ours.db");
  const graph = await createMemoryGraph({ ...ourOptions, backend: "sqlite", sqlitePath: file });
  try {
    return await measure((i) => graph.runTurn({ ...scope, message: prompt(i) }), async () => sqliteBytes(file));
  } finally {
    await graph.close();
  }
}

/** Ours with 1,536-dimension vectors from the stand-in provider (answering at once): what the vectors cost on disk. */
async function oursWithEmbeddings(dir: string): Promise<Figures & { vectors: number; vector_bytes: number }> {
  const file = path.join(dir, "ours-embeddings.db");
  const provider = await startPacedProvider({ ttftMs: 0, tokens: 1, tokenGapMs: 0, embeddingsMs: 0, dimensions: EMBEDDING_DIMENSIONS });
  const embeddings = createEmbeddings({ baseUrl: provider.baseUrl, apiKey: "bench", model: "text-embedding-3-small", timeoutMs: 10_000 });
  const graph = await createMemoryGraph({ ...ourOptions, chatModel: fakeModel(), embeddings, backend: "sqlite", sqlitePath: file });
  try {
    const figures = await measure((i) => graph.runTurn({ ...scope, message: prompt(i) }), async () => sqliteBytes(file));
    await graph.close();
    const db = new Database(file, { readonly: true });
    const row = db.prepare("SELECT count(*) AS n, COALESCE(sum(length(vector)), 0) AS bytes FROM store_vectors").get() as { n: number; bytes: number };
    db.close();
    return { ...figures, vectors: row.n, vector_bytes: row.bytes };
  } finally {
    await provider.close();
  }
}

async function bare(dir: string): Promise<Figures> {
  const file = path.join(dir, "bare.db");
  const model = fakeModel();
  const saver = SqliteSaver.fromConnString(file);
  const app = new StateGraph(MessagesAnnotation)
    .addNode("call_model", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addEdge(START, "call_model")
    .addEdge("call_model", END)
    .compile({ checkpointer: saver });
  const config = { configurable: { thread_id: "bench/u1/s1" } };
  return measure((i) => app.invoke({ messages: [{ role: "user", content: prompt(i) }] }, config), async () => sqliteBytes(file));
}

async function oursOnPostgres(url: string): Promise<Figures & { schema: string }> {
  const schema = `mg_bench_${process.pid}`;
  const pool = new pg.Pool({ connectionString: url, max: 6 });
  try {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    const checkpointer = new PostgresCheckpointer(pool, { schema });
    const store = new PostgresStore(pool, { schema });
    await Promise.all([checkpointer.setup(), store.setup()]);
    const graph = await createMemoryGraph({ ...ourOptions, persistence: { checkpointer, store, gc: postgresGcTarget(checkpointer, store) } });
    const bytes = async () =>
      Number(
        (
          await pool.query<{ n: string }>(
            "SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0) AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'",
            [schema],
          )
        ).rows[0]?.n,
      );
    const figures = await measure((i) => graph.runTurn({ ...scope, message: prompt(i) }), bytes);
    await graph.close();
    return { ...figures, schema };
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await pool.end();
  }
}

setLogLevel("silent");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "bench-storage-"));
try {
  const result: Record<string, unknown> = { turns: TURNS, ours: await ours(dir), bare: await bare(dir), ours_embeddings: await oursWithEmbeddings(dir) };
  const url = args.postgres ?? process.env.DATABASE_URL;
  if (url) {
    try {
      result.ours_postgres = await oursOnPostgres(url);
    } catch (error) {
      result.ours_postgres = { error: (error as Error).message };
    }
  }
  const o = result.ours as Figures;
  const b = result.bare as Figures;
  const e = result.ours_embeddings as Figures;
  result.targets = {
    ours_embeddings_at_most_10_mb: e.db_bytes_at_1000 <= 10_000_000,
    db_ratio_bare_over_ours_at_1000: Math.round((b.db_bytes_at_1000 / o.db_bytes_at_1000) * 10) / 10,
    ours_at_most_1_20th_of_bare: o.db_bytes_at_1000 * 20 <= b.db_bytes_at_1000,
    ours_p50_growth: Math.round((o.p50_ms_turns_901_1000 / o.p50_ms_turns_1_100) * 100) / 100,
    ours_flat_within_1_2x: o.p50_ms_turns_901_1000 <= 1.2 * o.p50_ms_turns_1_100,
    bare_p50_growth: Math.round((b.p50_ms_turns_901_1000 / b.p50_ms_turns_1_100) * 100) / 100,
  };
  console.log(JSON.stringify(result, null, 2));
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
