/**
 * The peer the benchmarks compare with: a bare LangGraph chatbot — one model node, the official
 * `SqliteSaver` from @langchain/langgraph-checkpoint-sqlite, streamMode "messages" — behind the
 * same HTTP surface as the memory-graph service (Hono, POST /v1/turns and /v1/turns/stream with
 * `token` and `result` SSE events, GET /healthz), so that both pay the same HTTP and SSE costs.
 * Run as a child process: PORT, SQLITE_PATH, OPENAI_BASE_URL (an OpenAI-compatible stand-in).
 */
import { serve } from "@hono/node-server";
import { AIMessageChunk, HumanMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { ChatOpenAI } from "@langchain/openai";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";

// Not `streaming: true`: under streamMode "messages" it streams anyway, and the JSON route takes one answer.
const model = new ChatOpenAI({ apiKey: "bench", model: "paced", configuration: { baseURL: process.env.OPENAI_BASE_URL }, maxRetries: 0 });
const graph = new StateGraph(MessagesAnnotation)
  .addNode("model", async (state) => ({ messages: [await model.invoke(state.messages)] }))
  .addEdge("__start__", "model")
  .compile({ checkpointer: SqliteSaver.fromConnString(process.env.SQLITE_PATH ?? ":memory:") });

interface Body {
  user_id: string;
  session_id: string;
  message: string;
}

const config = (body: Body) => ({ configurable: { thread_id: `${body.user_id}:${body.session_id}` } });

const app = new Hono();
app.get("/healthz", (c) => c.json({ status: "ok" }));
app.post("/v1/turns", async (c) => {
  const body = await c.req.json<Body>();
  const state = await graph.invoke({ messages: [new HumanMessage(body.message)] }, config(body));
  return c.json({ reply: { text: state.messages.at(-1)?.text ?? "" } });
});
app.post("/v1/turns/stream", async (c) => {
  const body = await c.req.json<Body>();
  return streamSSE(c, async (sse) => {
    let reply = "";
    const stream = await graph.stream({ messages: [new HumanMessage(body.message)] }, { ...config(body), streamMode: "messages" });
    for await (const [chunk] of stream) {
      if (!AIMessageChunk.isInstance(chunk) || !chunk.text) continue;
      reply += chunk.text;
      await sse.writeSSE({ event: "token", data: JSON.stringify({ text: chunk.text }) });
    }
    await sse.writeSSE({ event: "result", data: JSON.stringify({ reply: { text: reply } }) });
  });
});
serve({ fetch: app.fetch, hostname: "127.0.0.1", port: Number(process.env.PORT) });
// Exits on SIGTERM (so that a CPU profile, when asked for, is written).
process.once("SIGTERM", () => process.exit(0));
