import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { SqliteStore } from "../../src/memory/backends/sqlite-store.js";
import { searchRanked } from "../../src/memory/backends/sqlite-store/search.js";
import { loadLocomo } from "./locomo-data.js";
const conv = loadLocomo("/work/shared/bench/locomo/locomo-dev.json")[0]!;
const db = new Database(":memory:");
const store = new SqliteStore(db, {});
store.setup();
await store.batch(conv.turns.map((t) => ({ namespace: ["t", "u", "s", t.session.toString()], key: t.id, value: { text: t.text } })));
for (const [name, hybrid] of [["full", {}], ["noN", { neighbourWeight: 0 }]] as const) {
  const ms: number[] = [];
  for (let r = 0; r < 3; r++) for (const q of conv.questions) { const s = performance.now(); db.transaction(() => searchRanked(db, { namespacePrefix: ["t", "u"], query: q.question, limit: 50 }, undefined, { candidateLimit: 200, minVectorSimilarity: 0.45, hybrid }))(); ms.push(performance.now() - s); }
  ms.sort((a, b) => a - b); console.log(name, ms[Math.floor(ms.length / 2)], ms[Math.floor(ms.length * 0.95)]);
}
