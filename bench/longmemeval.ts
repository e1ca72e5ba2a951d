/**
 * LongMemEval retrieval benchmark:
 * `npm run bench:longmemeval -- --data <file[.gz]> [--json <out>] [--per-question <out>] [--baseline <per-question>] [--hybrid <json>] [--graph <json>] [--categories <weight>] [--time-window <weight>] [--every N] [--warm N] [--embeddings none|local]`.
 * For each question, a fresh memory (`--backend sqlite`, the default: a temp file; `postgres`: a
 * fresh schema in the database of `--database-url`, else DATABASE_URL) holds only that question's haystack, filled
 * through the public API only: `memory.importSessions`, one call per session (each turn with its
 * session's date); then the question is asked through `memory.search` (turn metrics, latency: the
 * first query after the writes is the one timed; with `--warm N`, the same search N times more, timed
 * apart as warm queries) and `memory.search` with `withContext` (the memory
 * block call_model would be given). A plain Okapi BM25 over "role: content" runs on the same
 * questions. Prints JSON.
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
import { loadLongMemEval, sessionsOf, type LmeQuestion } from "./lib/longmemeval-data.js";
import { mean, percentile, round } from "./lib/metrics.js";
import { compareWithFile, pairedComparison, type PerQuestion } from "./lib/paired.js";
import { PlainBm25 } from "./lib/plain-bm25.js";
import { perQuestion, summarizeTurns } from "./lib/turn-metrics.js";

const TOP = 50;

/** `--hybrid <json>`: ranking options (see `HybridOptions`) to try instead of the defaults. */
let tuning: HybridOptions | undefined;
/** `--graph <json>`: entity-graph walk options (see `GraphWalkOptions`) to try instead of the defaults, e.g. `{"walk":false}`. */
let graphWalk: GraphWalkOptions = DEFAULT_LIMITS.recall.graph;
/** `--categories <weight>`: a list question also ranks the kinds of what it asks for at this weight (`limits.recall.categoryWeight`, default 0.5; 0 is off). */
let categoryWeight = DEFAULT_LIMITS.recall.categoryWeight;
/** `--time-window <weight>`: hits written inside the window of time a question names, placed against its `askedAt`, gain this weight (`limits.recall.timeWindowWeight`; 0 is off). */
let timeWindowWeight = DEFAULT_LIMITS.recall.timeWindowWeight;
const METRICS = ["turn_ndcg@10", "turn_recall@10", "turn_recall_all@10", "turn_recall_all@5"];

interface Measured {
  ours: PerQuestion;
  bm25: PerQuestion;
  types: Map<string, string>;
  ingestMs: number[];
  queryMs: number[];
  /** `--warm N`: the question's search asked again N times after the first, each timed. */
  warmMs: number[];
  contextTokens: number[];
  inContext: number[];
  /** Knowledge-update questions with evidence in more than one session: whether the newest evidence ranks first (ours, plain BM25). */
  newestFirst: { ours: number; bm25: number }[];
}

async function runQuestion(q: LmeQuestion, stores: BenchStores, out: Measured, vectors: boolean, warm: number): Promise<void> {
  const embeddings = vectors ? new HashedNgramEmbeddings() : undefined;
  const opened = await stores.open(q.id, { embeddings, hybrid: tuning });
  const store = opened.store;
  const memory = await createMemoryGraph({ persistence: { store, checkpointer: new MemorySaver() }, embeddings: embeddings ?? null, chatModel: null, logger: false, limits: { recall: { graph: graphWalk, categoryWeight, timeWindowWeight } } });
  const user = { tenantId: "bench", userId: q.id };
  const plain = new PlainBm25();
  try {
    const started = performance.now();
    for (const session of sessionsOf(q)) await memory.importSessions(user, [session]);
    out.ingestMs.push(performance.now() - started);
    for (const turn of q.turns) plain.add(turn.id, `${turn.role}: ${turn.text}`);
    const asked = performance.now();
    const { hits } = await memory.search({ ...user, query: q.question, limit: TOP, asOf: q.askedAt });
    out.queryMs.push(performance.now() - asked);
    for (let i = 0; i < warm; i++) {
      const again = performance.now();
      await memory.search({ ...user, query: q.question, limit: TOP, asOf: q.askedAt });
      out.warmMs.push(performance.now() - again);
    }
    const evidence = new Set(q.turns.filter((t) => t.evidence).map((t) => t.id));
    const sessionOf = (id: string): number => Number(/^s(\d+):/.exec(id)?.[1] ?? -1);
    const base = { type: q.type, evidence, sessionOf, answerSessions: q.answerSessions };
    const retrieved = { ours: hits.map((hit) => hit.id), bm25: plain.search(q.question, TOP) };
    out.ours[q.id] = perQuestion({ ...base, retrieved: retrieved.ours });
    out.bm25[q.id] = perQuestion({ ...base, retrieved: retrieved.bm25 });
    const update = q.type === "knowledge-update" ? newestEvidence(q) : null;
    if (update) out.newestFirst.push({ ours: update(retrieved.ours), bm25: update(retrieved.bm25) });
    out.types.set(q.id, q.type);
    const { memoryContext } = await memory.search({ ...user, query: q.question, limit: 1, withContext: true });
    out.contextTokens.push(memoryContext?.tokens ?? 0);
    out.inContext.push(evidenceShown(memoryContext?.shownIds ?? [], [...evidence]));
  } finally {
    await memory.close();
    await opened.close();
  }
}

/**
 * For a question whose evidence lies in more than one session (a knowledge update: an old value,
 * then the new one), a scorer of a ranking: 1 when the newest session's evidence ranks above every
 * older session's (a turn not retrieved ranks last), else 0. Null for a question with one session of evidence.
 */
function newestEvidence(q: LmeQuestion): ((retrieved: string[]) => number) | null {
  const evidence = q.turns.filter((turn) => turn.evidence);
  const newest = evidence.reduce<LmeQuestion["turns"][number] | undefined>((latest, turn) => (latest === undefined || turn.createdAt > latest.createdAt ? turn : latest), undefined);
  const current = new Set(evidence.filter((turn) => turn.session === newest?.session).map((turn) => turn.id));
  const older = new Set(evidence.filter((turn) => !current.has(turn.id)).map((turn) => turn.id));
  if (older.size === 0) return null;
  return (retrieved) => {
    const first = (ids: Set<string>) => {
      const at = retrieved.findIndex((id) => ids.has(id));
      return at === -1 ? Number.POSITIVE_INFINITY : at;
    };
    return first(current) < first(older) ? 1 : 0;
  };
}


function table(rows: PerQuestion, types: Map<string, string>): { all: Record<string, number>; by_type: Record<string, Record<string, number>> } {
  const byType: Record<string, Record<string, number>> = {};
  for (const type of [...new Set(types.values())].sort()) {
    byType[type] = summarizeTurns(Object.entries(rows).filter(([id]) => types.get(id) === type).map(([, r]) => r));
  }
  return { all: summarizeTurns(Object.values(rows)), by_type: byType };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: "string" },
      json: { type: "string" },
      "per-question": { type: "string" },
      baseline: { type: "string" },
      hybrid: { type: "string" },
      graph: { type: "string" },
      categories: { type: "string" },
      "time-window": { type: "string" },
      every: { type: "string", default: "1" },
      warm: { type: "string", default: "0" },
      embeddings: { type: "string", default: "none" },
      ...BACKEND_OPTIONS,
    },
    strict: true,
  });
  const every = Number(values.every);
  const warm = Number(values.warm);
  if (!values.data || !Number.isInteger(every) || every < 1 || !Number.isInteger(warm) || warm < 0 || !["local", "none"].includes(values.embeddings)) {
    process.stderr.write(
      "usage: bench:longmemeval -- --data <longmemeval.json[.gz]> [--json <out>] [--per-question <out>] [--baseline <per-question>] [--hybrid <json>] [--graph <json>] [--categories <weight>] [--time-window <weight>] [--every N] [--warm N] [--embeddings none|local] [--backend sqlite|postgres] [--database-url <url>]\n",
    );
    process.exit(2);
  }
  const questions = loadLongMemEval(values.data).filter((_, i) => i % every === 0);
  if (values.hybrid) tuning = JSON.parse(values.hybrid) as HybridOptions;
  if (values.graph) graphWalk = { ...graphWalk, ...(JSON.parse(values.graph) as Partial<GraphWalkOptions>) };
  if (values.categories !== undefined) categoryWeight = Number(values.categories);
  if (values["time-window"] !== undefined) timeWindowWeight = Number(values["time-window"]);
  const stores = benchStores(values.backend, values["database-url"]);
  const measured: Measured = { ours: {}, bm25: {}, types: new Map(), ingestMs: [], queryMs: [], warmMs: [], contextTokens: [], inContext: [], newestFirst: [] };
  try {
    for (const q of questions) await runQuestion(q, stores, measured, values.embeddings === "local", warm);
  } finally {
    stores.dispose();
  }
  const turns = questions.reduce((s, q) => s + q.turns.length, 0);
  const report = {
    data: values.data,
    backend: stores.backend,
    embeddings: values.embeddings === "none" ? "none" : "local hashed character n-grams (HashedNgramEmbeddings)",
    questions: questions.length,
    turns,
    ...table(measured.ours, measured.types),
    plain_bm25: table(measured.bm25, measured.types),
    paired_vs_plain_bm25: Object.fromEntries(METRICS.map((m) => [m, pairedComparison(measured.ours, measured.bm25, m)])),
    ...(values.baseline ? { paired_vs_baseline: compareWithFile(measured.ours, values.baseline, METRICS) } : {}),
    latency_ms: {
      ingest_per_turn_mean: round(measured.ingestMs.reduce((s, x) => s + x, 0) / Math.max(1, turns), 3),
      query_p50: round(percentile(measured.queryMs, 50), 3),
      query_p95: round(percentile(measured.queryMs, 95), 3),
      ...(warm > 0 ? { warm_query_p50: round(percentile(measured.warmMs, 50), 3), warm_query_p95: round(percentile(measured.warmMs, 95), 3) } : {}),
    },
    context_tokens: {
      budget: DEFAULT_LIMITS.context.tokenBudget,
      mean: round(mean(measured.contextTokens)),
      p95: percentile(measured.contextTokens, 95),
      max: Math.max(0, ...measured.contextTokens),
    },
    evidence_in_context: round(100 * mean(measured.inContext)),
    knowledge_update_newest_first: {
      questions: measured.newestFirst.length,
      ours: round(100 * mean(measured.newestFirst.map((q) => q.ours))),
      plain_bm25: round(100 * mean(measured.newestFirst.map((q) => q.bm25))),
    },
  };
  const text = JSON.stringify(report, null, 2);
  process.stdout.write(`${text}\n`);
  if (values.json) writeFileSync(values.json, `${text}\n`);
  if (values["per-question"]) writeFileSync(values["per-question"], `${JSON.stringify(measured.ours)}\n`);
}

await main();
