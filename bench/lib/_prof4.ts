import { performance } from "node:perf_hooks";
import { RecallIndex, rankHybrid, tokenize } from "../../src/memory/ranking/index.js";
import { loadLocomo } from "./locomo-data.js";
const conv = loadLocomo("/work/shared/bench/locomo/locomo-dev.json")[0]!;
const index = new RecallIndex();
conv.turns.forEach((t, i) => index.add(String(i), tokenize(t.text), String(t.session), i));
const src = { score: (x: readonly string[]) => index.score(x, 200), termsOf: (ids: readonly string[]) => index.termsOf(ids), neighboursOf: (ids: readonly string[]) => index.neighboursOf(ids) };
for (const [name, o] of [["full", {}], ["noN", { neighbourWeight: 0 }]] as const) {
  const ms: number[] = [];
  for (let r = 0; r < 3; r++) for (const q of conv.questions) { const s = performance.now(); rankHybrid(tokenize(q.question), src, undefined, o); ms.push(performance.now() - s); }
  ms.sort((a, b) => a - b); console.log(name, ms[Math.floor(ms.length / 2)], ms[Math.floor(ms.length * 0.95)]);
}
const ms: number[] = [];
for (const q of conv.questions) { const t = tokenize(q.question); const sc = index.score(t, 200); const s = performance.now(); index.neighboursOf([...sc.keys()]); ms.push(performance.now() - s); }
ms.sort((a, b) => a - b); console.log("neigh", ms[Math.floor(ms.length / 2)]);
