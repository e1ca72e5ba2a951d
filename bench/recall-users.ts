/**
 * Memory of the recall index per active user: `npm run bench:recall-users [-- --backend postgres|sqlite]
 * [--users 1000] [--messages 200] [--cache-mb 128] [--max-rss-mb 0]` (the cache's bounds, RECALL_CACHE_MB and
 * RECALL_CACHE_MAX_RSS_MB; the engine's defaults when absent). Writes `messages` synthetic messages for each of `users` users
 * (one batch per user, as an import writes them), then ranks one query per user through
 * `searchSimilar` (so every user's index is built and cached, up to the cache's bound), and reports
 * the heap and RSS before and after, and the heap per cached user (after a forced GC when node
 * runs with --expose-gc), and heap plus array buffers per user (`kb_per_user`). Prints JSON.
 */
import { parseArgs } from "node:util";
import type { PutOperation } from "@langchain/langgraph-checkpoint";
import { DEFAULT_LIMITS } from "../src/memory/limits.js";
import { namespaces } from "../src/memory/namespaces.js";
import type { TranscriptRecord } from "../src/memory/records.js";
import { searchSimilar } from "../src/memory/similar.js";
import { BACKEND_OPTIONS, benchStores } from "./lib/bench-store.js";
import { round } from "./lib/metrics.js";
import type Database from "better-sqlite3";
import { indexCacheOf } from "../src/storage/sqlite/index-cache.js";
import { seededRandom, syntheticSentence } from "./lib/synthetic.js";

const { values } = parseArgs({
  options: {
    users: { type: "string", default: "1000" },
    messages: { type: "string", default: "200" },
    "cache-mb": { type: "string" },
    "max-rss-mb": { type: "string", default: "0" },
    ...BACKEND_OPTIONS,
  },
});
const users = Number(values.users);
const perUser = Number(values.messages);
const random = seededRandom(7);
const stores = benchStores(values.backend, values["database-url"]);
const MiB = 1024 * 1024;
const indexCache = {
  ...(values["cache-mb"] === undefined ? {} : { maxCachedBytes: Number(values["cache-mb"]) * MiB }),
  maxRss: Number(values["max-rss-mb"]) * MiB,
};
const opened = await stores.open("users", { indexCache });
const store = opened.store;
const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);

function heap(): { heapUsed: number; heapTotal: number; external: number; rss: number; arrayBuffers: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const { heapUsed, heapTotal, external, rss, arrayBuffers } = process.memoryUsage();
  return { heapUsed, heapTotal, external, rss, arrayBuffers };
}

/** The LRU of the store's recall index cache (a private field of either engine's cache), for its own byte estimate. */
function cacheOf(): { bytes: number; size: number; byteBudget: number } {
  const inner = opened.store as unknown as { db?: Database.Database; cache?: unknown };
  const cache = (inner.db ? indexCacheOf(inner.db) : inner.cache) as { entries: { bytes: number; size: number; byteBudget: number } };
  return cache.entries;
}
const cacheBytes = () => cacheOf().bytes;
const cachedUsers = () => cacheOf().size;

try {
  for (let u = 0; u < users; u++) {
    const scope = { tenantId: "bench", userId: `user-${u}`, sessionId: "s0" };
    const ops: PutOperation[] = [];
    for (let i = 0; i < perUser; i++) {
      const record: TranscriptRecord = {
        id: `m${i}`,
        role: i % 2 === 0 ? "user" : "assistant",
        text: syntheticSentence(random, 6 + Math.floor(random() * 14)),
        parentId: i === 0 ? null : `m${i - 1}`,
        sessionId: "s0",
        createdAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
      };
      ops.push({ namespace: namespaces.transcript(scope), key: record.id, value: { ...record } });
    }
    await store.batch(ops);
  }
  const before = heap();
  const limits = DEFAULT_LIMITS.recall;
  let peakRss = 0;
  for (let u = 0; u < users; u++) {
    if (u % 100 === 0) peakRss = Math.max(peakRss, process.memoryUsage.rss());
    await searchSimilar(store, namespaces.sessions({ tenantId: "bench", userId: `user-${u}` }), {
      query: syntheticSentence(random, 6),
      limit: limits.similarTopK,
      maxCandidates: limits.maxCandidates,
      minVectorScore: limits.minVectorScore,
      excludeIds: new Set(),
    });
    // As between requests of a service: the event loop turns, so work a search scheduled for after it (a
    // recall index snapshot's write) runs, rather than every user's waiting, with its index, for the loop's end.
    await new Promise((resolve) => setImmediate(resolve));
  }
  const rssServed = process.memoryUsage.rss();
  const after = heap();
  const cached = cachedUsers();
  const report = {
    backend: stores.backend,
    users,
    messages_per_user: perUser,
    gc_forced: typeof (globalThis as { gc?: unknown }).gc === "function",
    heap_mb: { before: mb(before.heapUsed), after: mb(after.heapUsed) },
    heap_total_mb: { before: mb(before.heapTotal), after: mb(after.heapTotal) },
    external_mb: { before: mb(before.external), after: mb(after.external) },
    cache_estimate_mb: mb(cacheBytes()),
    cached_users: cached,
    cache_budget_mb: mb(cacheOf().byteBudget),
    // RSS as a service has it (no forced collection): the highest seen every 100 users, and at the end; then after a forced GC.
    rss_mb: { before: mb(before.rss), peak: mb(Math.max(peakRss, rssServed)), served: mb(rssServed), after_gc: mb(after.rss) },
    rss_growth_per_estimated_byte: round((rssServed - before.rss) / cacheBytes(), 2),
    // What a cached user holds by the estimate and in heap plus array buffers (after a forced GC).
    estimate_kb_per_cached_user: round(cacheBytes() / 1024 / cached, 1),
    measured_kb_per_cached_user: round((after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers) / 1024 / cached, 1),
    array_buffers_mb: { before: mb(before.arrayBuffers), after: mb(after.arrayBuffers) },
    heap_kb_per_user: round((after.heapUsed - before.heapUsed) / 1024 / users, 1),
    heap_bytes_per_message: Math.round((after.heapUsed - before.heapUsed) / (users * perUser)),
    // Typed arrays' backing stores lie outside the heap: heap plus array buffers is what a cached user holds.
    kb_per_user: round((after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers) / 1024 / users, 1),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} finally {
  await opened.close();
  stores.dispose();
}
