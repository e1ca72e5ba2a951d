/**
 * LoCoMo retrieval benchmark: `npm run bench:locomo -- --data <file> [--json <out>]`.
 * For each conversation, a fresh memory (`--backend sqlite`, the default: a temp file; `postgres`:
 * a fresh schema in the database of `--database-url`, else DATABASE_URL) is filled through the public API only:
 * `memory.importSessions`, one call per session (each turn with its speaker and its session's
 * date); then every question is asked through `memory.search` (ranking metrics, latency) and
 * `memory.search` with `withContext` (the memory block call_model would be given). Prints JSON.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { MemorySaver } from "@langchain/langgraph";
import { createMemoryGraph, DEFAULT_LIMITS, HashedNgramEmbeddings } from "../src/index.js";
import type { HybridOptions } from "../src/memory/ranking/hybrid.js";
import type { GraphWalkOptions } from "../src/memory/limits.js";
import { BACKEND_OPTIONS, benchStores, type BenchStores } from "./lib/bench-store.js";
import { evidenceShown } from "./lib/evidence-shown.js";
import { loadLocomo, locomoSessions, type LocomoConversation } from "./lib/locomo-data.js";
import { mean, percentile, recallAt, round, summarize, type QuestionResult } from "./lib/metrics.js";
import { compareWithFile, pairedComparison, type PerQuestion } from "./lib/paired.js";
import { PlainBm25 } from "./lib/plain-bm25.js";

const TOP = 50;

/** `--hybrid <json>`: ranking options (see `HybridOptions`) to try instead of the defaults. */
let tuning: HybridOptions | undefined;
/** `--graph <json>`: entity-graph walk options (see `GraphWalkOptions`) to try instead of the defaults, e.g. `{"walk":false}`. */
let graphWalk: GraphWalkOptions = DEFAULT_LIMITS.recall.graph;
/** `--categories <weight>`: a list question also ranks the kinds of what it asks for at this weight (`limits.recall.categoryWeight`, default 0.5; 0 is off). */
let categoryWeight = DEFAULT_LIMITS.recall.categoryWeight;
/** `--time-window <weight>`: `limits.recall.timeWindowWeight` (0 is off). LoCoMo gives no time of asking: questions are asked now, after every conversation. */
let timeWindowWeight = DEFAULT_LIMITS.recall.timeWindowWeight;

interface Measured {
  results: QuestionResult[];
  /** Plain Okapi BM25 over "speaker: text" on the same questions. */
  bm25: QuestionResult[];
  ids: string[];
  ingestMs: number[];
  queryMs: number[];
  contextTokens: number[];
  /** Per question with evidence: the fraction of its evidence turns inside the rendered context. */
  inContext: { category: number; fraction: number }[];
}

async function runConversation(conv: LocomoConversation, stores: BenchStores, out: Measured, vectors: boolean): Promise<void> {
  const embeddings = vectors ? new HashedNgramEmbeddings() : undefined;
  const opened = await stores.open(conv.sampleId, { embeddings, hybrid: tuning });
  const store = opened.store;
  const memory = await createMemoryGraph({ persistence: { store, checkpointer: new MemorySaver() }, embeddings: embeddings ?? null, chatModel: null, logger: false, limits: { recall: { graph: graphWalk, categoryWeight, timeWindowWeight } } });
  const user = { tenantId: "bench", userId: conv.sampleId };
  try {
    for (const session of locomoSessions(conv)) {
      const started = performance.now();
      await memory.importSessions(user, [session]);
      const perTurn = (performance.now() - started) / session.messages.length;
      out.ingestMs.push(...session.messages.map(() => perTurn));
    }
    const plain = new PlainBm25();
    for (const turn of conv.turns) plain.add(turn.id, `${turn.speaker}: ${turn.text}`);
    // The question is not part of any session: search covers all of the user's sessions.
    for (const [i, qa] of conv.questions.entries()) {
      out.ids.push(`${conv.sampleId}#${i}`);
      out.bm25.push({ category: qa.category, evidence: qa.evidence, retrieved: plain.search(qa.question, TOP).map((id) => [id]) });
      const started = performance.now();
      const { hits } = await memory.search({ ...user, query: qa.question, limit: TOP });
      out.queryMs.push(performance.now() - started);
      out.results.push({ category: qa.category, evidence: qa.evidence, retrieved: hits.map((hit) => [hit.id]) });
    }
    // What call_model would be given, in a second pass so its reads do not disturb the timings above.
    for (const qa of conv.questions) {
      const { memoryContext } = await memory.search({ ...user, query: qa.question, limit: 1, withContext: true });
      out.contextTokens.push(memoryContext?.tokens ?? 0);
      if (qa.evidence.length > 0) out.inContext.push({ category: qa.category, fraction: evidenceShown(memoryContext?.shownIds ?? [], qa.evidence) });
    }
  } finally {
    await memory.close();
    await opened.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: "string" },
      json: { type: "string" },
      embeddings: { type: "string", default: "none" },
      "per-question": { type: "string" },
      baseline: { type: "string" },
      hybrid: { type: "string" },
      graph: { type: "string" },
      categories: { type: "string" },
      "time-window": { type: "string" },
      ...BACKEND_OPTIONS,
    },
    strict: true,
  });
  if (!values.data) {
    process.stderr.write(
      "usage: bench:locomo -- --data <locomo.json> [--json <out.json>] [--embeddings none|local] [--per-question <out>] [--baseline <per-question>] [--hybrid <json>] [--graph <json>] [--categories <weight>] [--time-window <weight>] [--backend sqlite|postgres] [--database-url <url>]\n",
    );
    process.exit(2);
  }
  const conversations = loadLocomo(values.data);
  if (values.hybrid) tuning = JSON.parse(values.hybrid) as HybridOptions;
  if (values.graph) graphWalk = { ...graphWalk, ...(JSON.parse(values.graph) as Partial<GraphWalkOptions>) };
  if (values.categories !== undefined) categoryWeight = Number(values.categories);
  if (values["time-window"] !== undefined) timeWindowWeight = Number(values["time-window"]);
  const stores = benchStores(values.backend, values["database-url"]);
  const measured: Measured = { results: [], bm25: [], ids: [], ingestMs: [], queryMs: [], contextTokens: [], inContext: [] };
  try {
    for (const conv of conversations) await runConversation(conv, stores, measured, values.embeddings !== "none");
  } finally {
    stores.dispose();
  }
  const { results } = measured;
  const main = results.filter((r) => r.category >= 1 && r.category <= 4 && r.evidence.length > 0);
  const byCategory: Record<string, Record<string, number>> = {};
  for (const category of [...new Set(results.map((r) => r.category))].sort()) {
    byCategory[String(category)] = summarize(results.filter((r) => r.category === category));
  }
  const perQuestion = (list: readonly QuestionResult[]): PerQuestion =>
    Object.fromEntries(list.map((r, i) => [measured.ids[i] ?? String(i), { "recall@5": recallAt(r, 5), "recall@10": recallAt(r, 10) }]));
  const ours = perQuestion(results);
  const metrics = ["recall@5", "recall@10"];
  const inContext = (list: { fraction: number }[]): number => round(100 * mean(list.map((x) => x.fraction)));
  const report = {
    data: values.data,
    backend: stores.backend,
    embeddings: values.embeddings === "none" ? "none" : "local hashed character n-grams (HashedNgramEmbeddings)",
    conversations: conversations.length,
    turns: conversations.reduce((s, c) => s + c.turns.length, 0),
    all: summarize(results),
    main: summarize(main),
    by_category: byCategory,
    plain_bm25: { all: summarize(measured.bm25), main: summarize(measured.bm25.filter((r) => r.category >= 1 && r.category <= 4 && r.evidence.length > 0)) },
    paired_vs_plain_bm25: Object.fromEntries(metrics.map((m) => [m, pairedComparison(ours, perQuestion(measured.bm25), m)])),
    ...(values.baseline ? { paired_vs_baseline: compareWithFile(ours, values.baseline, metrics) } : {}),
    latency_ms: {
      ingest_per_turn_p50: round(percentile(measured.ingestMs, 50), 3),
      query_p50: round(percentile(measured.queryMs, 50), 3),
      query_p95: round(percentile(measured.queryMs, 95), 3),
    },
    context_tokens: {
      budget: DEFAULT_LIMITS.context.tokenBudget,
      mean: round(mean(measured.contextTokens)),
      p95: percentile(measured.contextTokens, 95),
      max: Math.max(0, ...measured.contextTokens),
    },
    evidence_in_context: {
      all: inContext(measured.inContext),
      main: inContext(measured.inContext.filter((x) => x.category >= 1 && x.category <= 4)),
    },
  };
  const text = JSON.stringify(report, null, 2);
  process.stdout.write(`${text}\n`);
  if (values.json) writeFileSync(values.json, `${text}\n`);
  if (values["per-question"]) writeFileSync(values["per-question"], `${JSON.stringify(ours)}\n`);
}

await main();
