import { performance } from "node:perf_hooks";
import { SqliteStore } from "../../src/memory/backends/sqlite-store.js";
import { HashedNgramEmbeddings } from "../../src/memory/ranking/index.js";
import { loadLocomo } from "./locomo-data.js";
const conv = loadLocomo("/work/shared/bench/locomo/locomo-dev.json")[0]!;
const emb = new HashedNgramEmbeddings();
const variants: [string, object][] = [["full", {}], ["noNeighbour", { neighbourWeight: 0 }], ["noPrf", { feedbackDocs: 0 }], ["neither", { neighbourWeight: 0, feedbackDocs: 0 }]];
for (const withEmb of [false, true]) for (const [name, hybrid] of variants) {
  const store = SqliteStore.open(":memory:", withEmb ? { embeddings: emb, hybrid } : { hybrid });
  await store.batch(conv.turns.map((t) => ({ namespace: ["t", "u", "s", t.session.toString()], key: t.id, value: { text: t.text } })));
  const ms: number[] = [];
  for (const q of conv.questions) { const s = performance.now(); await store.search(["t", "u"], { query: q.question, limit: 50 }); ms.push(performance.now() - s); }
  ms.sort((a, b) => a - b); console.log(withEmb, name, ms[Math.floor(ms.length / 2)]!.toFixed(2), ms[Math.floor(ms.length * 0.95)]!.toFixed(2));
}
