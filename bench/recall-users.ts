/**
 * Memory of the recall index per active user: `npm run bench:recall-users [-- --backend postgres|sqlite]
 * [--users 1000] [--messages 200]`. Writes `messages` synthetic messages for each of `users` users
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
import { seededRandom, syntheticSentence } from "./lib/synthetic.js";

const { values } = parseArgs({ options: { users: { type: "string", default: "1000" }, messages: { type: "string", default: "200" }, ...BACKEND_OPTIONS } });
const users = Number(values.users);
const perUser = Number(values.messages);
const random = seededRandom(7);
const stores = benchStores(values.backend, values["database-url"]);
const opened = await stores.open("users", {});
const store = opened.store;
const mb = (bytes: number) => round(bytes / 1024 / 1024, 1);

function heap(): { heapUsed: number; rss: number; arrayBuffers: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const { heapUsed, rss, arrayBuffers } = process.memoryUsage();
  return { heapUsed, rss, arrayBuffers };
}

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
  for (let u = 0; u < users; u++) {
    await searchSimilar(store, namespaces.sessions({ tenantId: "bench", userId: `user-${u}` }), {
      query: syntheticSentence(random, 6),
      limit: limits.similarTopK,
      maxCandidates: limits.maxCandidates,
      minVectorScore: limits.minVectorScore,
      excludeIds: new Set(),
    });
  }
  const after = heap();
  const report = {
    backend: stores.backend,
    users,
    messages_per_user: perUser,
    gc_forced: typeof (globalThis as { gc?: unknown }).gc === "function",
    heap_mb: { before: mb(before.heapUsed), after: mb(after.heapUsed) },
    rss_mb: { before: mb(before.rss), after: mb(after.rss) },
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
