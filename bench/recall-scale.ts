/**
 * Recall at scale: `npm run bench:recall-scale [-- --backend sqlite|postgres]` — one user with
 * 100,000 stored messages in the SQLite store (temp file) or the Postgres store (a fresh schema), written through the graph's write path in batches (one transaction
 * each); reports the ingest rate, and query latency of `searchSimilar` at 10,000 and 100,000
 * messages (the first query of each size, which builds the in-process index, reported apart).
 * Messages are synthetic: sentences drawn from a fixed vocabulary by a seeded generator.
 */
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import type { PutOperation } from "@langchain/langgraph-checkpoint";
import { DEFAULT_LIMITS } from "../src/memory/limits.js";
import { namespaces } from "../src/memory/namespaces.js";
import { HashedNgramEmbeddings } from "../src/memory/ranking/index.js";
import type { TranscriptRecord } from "../src/memory/records.js";
import type { MemoryScope } from "../src/memory/scope.js";
import { searchSimilar } from "../src/memory/similar.js";
import { BACKEND_OPTIONS, benchStores } from "./lib/bench-store.js";
import { percentile, round } from "./lib/metrics.js";
import { syntheticSentence, seededRandom } from "./lib/synthetic.js";

const { values } = parseArgs({
  options: {
    total: { type: "string", default: "100000" },
    batch: { type: "string", default: "500" },
    queries: { type: "string", default: "300" },
    // The default configuration computes no vectors; `local` measures the hashed n-gram embedder.
    embeddings: { type: "string", default: "none" },
    ...BACKEND_OPTIONS,
  },
});
const total = Number(values.total);
const batchSize = Number(values.batch);
const queryCount = Number(values.queries);
const checkpoints = [10_000, 100_000].filter((n) => n <= total);
const perSession = 100;

const embeddings = values.embeddings === "local" ? new HashedNgramEmbeddings() : undefined;
const stores = benchStores(values.backend, values["database-url"]);
const opened = await stores.open("scale", { embeddings });
const store = opened.store;
const random = seededRandom(42);
const scope = (session: number): MemoryScope => ({ tenantId: "bench", userId: "user-1", sessionId: `s${session}` });
const limits = DEFAULT_LIMITS.recall;

async function measureQueries(): Promise<Record<string, number>> {
  const prefix = namespaces.sessions(scope(0));
  const ask = (query: string) =>
    searchSimilar(store, prefix, {
      query,
      limit: limits.similarTopK,
      maxCandidates: limits.maxCandidates,
      minVectorScore: limits.minVectorScore,
      excludeIds: new Set(),
      embeddings,
    });
  let started = performance.now();
  await ask(syntheticSentence(random, 8));
  const firstMs = performance.now() - started;
  const times: number[] = [];
  for (let i = 0; i < queryCount; i++) {
    const query = syntheticSentence(random, 4 + Math.floor(random() * 8));
    started = performance.now();
    await ask(query);
    times.push(performance.now() - started);
  }
  return {
    first_query_ms: round(firstMs, 1),
    query_p50_ms: round(percentile(times, 50), 3),
    query_p95_ms: round(percentile(times, 95), 3),
  };
}

try {
  const report: Record<string, unknown> = { backend: stores.backend, messages: total, batch: batchSize, embeddings: embeddings ? "local hashed character n-grams" : "none" };
  let written = 0;
  let ingestMs = 0;
  let parentId: string | null = null;
  for (const checkpoint of checkpoints) {
    while (written < checkpoint) {
      const ops: PutOperation[] = [];
      for (let i = 0; i < batchSize && written < checkpoint; i++, written++) {
        const session = Math.floor(written / perSession);
        const record: TranscriptRecord = {
          id: `m${written}`,
          role: written % 2 === 0 ? "user" : "assistant",
          text: syntheticSentence(random, 6 + Math.floor(random() * 14)),
          speaker: written % 2 === 0 ? "Pat" : "Assistant",
          parentId: written % perSession === 0 ? null : parentId,
          sessionId: `s${session}`,
          createdAt: new Date(Date.UTC(2024, 0, 1) + written * 60_000).toISOString(),
        };
        parentId = record.id;
        // The put saveTranscriptMessage makes, batched: the same namespace, key and value.
        ops.push({ namespace: namespaces.transcript(scope(session)), key: record.id, value: { ...record } });
      }
      const started = performance.now();
      await store.batch(ops);
      ingestMs += performance.now() - started;
    }
    report[`at_${checkpoint}`] = { ingest_messages_per_s: Math.round((written / ingestMs) * 1000), ...(await measureQueries()) };
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  await opened.close();
  stores.dispose();
}
