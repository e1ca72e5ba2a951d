import { createMemoryGraph } from "./src/app/create-memory-graph.js";
import { setLogLevel } from "./src/logger.js";
import { FakeListChatModel } from "@langchain/core/utils/testing";
setLogLevel("silent");
const g = await createMemoryGraph({ backend: "sqlite", sqlitePath: `/tmp/prof-${Date.now()}.db`, chatModel: new FakeListChatModel({ responses: ["Thanks for asking. Your order is being prepared."] }), classifierModel: null, summaryModel: null });
const scope = { tenantId: "bench", userId: "u1", sessionId: "s1" };
const timesByNode: Record<string, number[]> = {};
for (let i = 1; i <= 1000; i++) {
  const stream = await g.app.stream({ input: { ...scope, message: `Turn ${i}: could you tell me when order ${1000 + i} ships?` } }, { configurable: { thread_id: "bench/u1/s1" }, streamMode: "debug", durability: "exit" });
  let t = performance.now();
  for await (const ev of stream as AsyncIterable<any>) {
    if (ev.type === "task_result") { const now = performance.now(); const k = `${ev.payload.name}:${i <= 100 ? "early" : i > 900 ? "late" : "mid"}`; (timesByNode[k] ??= []).push(now - t); t = now; }
  }
}
const med = (a: number[]) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)]!.toFixed(2);
for (const [k, v] of Object.entries(timesByNode).sort()) console.log(k, med(v), v.length);
await g.close();
