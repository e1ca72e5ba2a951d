import { SqliteStore } from "../../src/memory/backends/sqlite-store.js";
import { loadLocomo } from "./locomo-data.js";
const conv = loadLocomo("/work/shared/bench/locomo/locomo-dev.json")[0]!;
const store = SqliteStore.open(":memory:", {});
await store.batch(conv.turns.map((t) => ({ namespace: ["t", "u", "s", t.session.toString()], key: t.id, value: { text: t.text } })));
for (let r = 0; r < 3; r++) for (const q of conv.questions) await store.search(["t", "u"], { query: q.question, limit: 50 });
