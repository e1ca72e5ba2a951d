import { Bm25Index, HashedNgramEmbeddings, cosine, fuseRankings, tokenize } from "../../src/memory/ranking/index.js";
import { loadLocomo } from "./locomo-data.js";
import { summarize, type QuestionResult } from "./metrics.js";
const convs = loadLocomo("/work/shared/bench/locomo/locomo-dev.json");
const emb = new HashedNgramEmbeddings();
const MONTHS = ["january","february","march","april","may","june","july","august","september","october","november","december"];
type Cfg = { k1: number; b: number; speaker: boolean; date: boolean; vec: number; smooth: number; prf: number; rrfK: number };
function run(cfg: Cfg) {
  const results: QuestionResult[] = [];
  for (const c of convs) {
    const idx = new Bm25Index({ k1: cfg.k1, b: cfg.b, idf: (cfg as any).idf });
    const texts = c.turns.map((t) => {
      const d = new Date(t.createdAt);
      let s = t.text;
      if (cfg.speaker) s = `${t.speaker}: ${s}`;
      if (cfg.date) s += `\n${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
      return s;
    });
    c.turns.forEach((t, i) => idx.add(t.id, tokenize(texts[i]!)));
    const vecs = cfg.vec > 0 ? texts.map((t) => emb.embed(t)) : [];
    const pos = new Map(c.turns.map((t, i) => [t.id, i]));
    for (const q of c.questions) {
      let qt = tokenize(q.question);
      let scores = idx.score(qt);
      if (cfg.prf > 0) {
        const top = [...scores].sort((a, b) => b[1] - a[1]).slice(0, 3);
        const extra = new Map<string, number>();
        for (const [id] of top) for (const t of tokenize(texts[pos.get(id)!]!)) extra.set(t, (extra.get(t) ?? 0) + 1);
        const add = [...extra].filter(([t]) => !qt.includes(t)).sort((a, b) => b[1] - a[1]).slice(0, 5).map(([t]) => t);
        const s2 = idx.score(add);
        for (const [id, s] of s2) scores.set(id, (scores.get(id) ?? 0) + cfg.prf * s);
      }
      if (cfg.smooth > 0) {
        const sm = new Map<string, number>();
        for (const [id, s] of scores) {
          const i = pos.get(id)!;
          let v = s;
          for (const j of [i - 1, i + 1]) { const n = c.turns[j]; if (n && n.session === c.turns[i]!.session) v += cfg.smooth * (scores.get(n.id) ?? 0); }
          sm.set(id, v);
        }
        // neighbours of hits that had no own score
        for (const [id, s] of scores) { const i = pos.get(id)!; for (const j of [i - 1, i + 1]) { const n = c.turns[j]; if (n && n.session === c.turns[i]!.session && !scores.has(n.id)) sm.set(n.id, (sm.get(n.id) ?? 0) + cfg.smooth * s); } }
        scores = sm;
      }
      const lex = [...scores].map(([id, score]) => ({ id, score }));
      const lists = [{ name: "lexical", results: lex }];
      if (cfg.vec > 0) {
        const qv = emb.embed(q.question);
        const v = c.turns.map((t, i) => ({ id: t.id, score: cosine(qv, vecs[i]!) })).filter((h) => h.score >= (cfg as any).minv).sort((a, b) => b.score - a.score).slice(0, 200);
        lists.push({ name: "vector", results: v, weight: cfg.vec } as any);
      }
      const fused = fuseRankings(lists, { k: cfg.rrfK });
      results.push({ category: q.category, evidence: q.evidence, retrieved: fused.slice(0, 50).map((h) => [h.id]) });
    }
  }
  const s = summarize(results);
  return `${s["recall@5"]} ${s["recall@10"]} ${s["recall@25"]} ${s["recall@50"]} mrr ${s.mrr}`;
}
const base: Cfg & {minv:number} = { minv: 0.45, k1: 1.2, b: 0.75, speaker: false, date: false, vec: 0, smooth: 0, prf: 0, rrfK: 60 };
const variants: [string, Partial<Cfg>][] = JSON.parse(process.argv[2] ?? "[]");
for (const [name, v] of variants) console.log(name.padEnd(30), run({ ...base, ...v }));
