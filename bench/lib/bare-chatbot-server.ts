/**
 * The peer the benchmarks compare with: a bare LangGraph chatbot — one model node, the official
 * `SqliteSaver` from @langchain/langgraph-checkpoint-sqlite, streamMode "messages" — behind the
 * same HTTP surface as the memory-graph service (Hono, POST /v1/turns and /v1/turns/stream with
 * `token` and `result` SSE events, GET /healthz), so that both pay the same HTTP and SSE costs.
 * Run as a child process: PORT, SQLITE_PATH, OPENAI_BASE_URL (an OpenAI-compatible stand-in),
 * OPENAI_API_KEY (default "bench"; a stand-in shared with other services counts tokens by it).
 *
 * With BARE_SHAPE=six_nodes it is the floor of what a memory graph of our shape costs: the same
 * official parts, but six nodes wired as ours are (ingest_prompt → recall → [call_model ‖
 * classify_event] → build_candidate → summarize when due, with both conditional edges) and the
 * classification's model call on every turn (`classifyWithModel`, the tool call the memory graph
 * makes), checkpointed once a turn as ours is (durability "exit"); every other node does nothing,
 * and nothing is recalled, stored or summarised.
 */
import { serve } from "@hono/node-server";
import { AIMessageChunk, HumanMessage } from "@langchain/core/messages";
import { Annotation, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { ChatOpenAI } from "@langchain/openai";
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { classifyWithModel } from "../../src/models/structured.js";

const openAi = { apiKey: process.env.OPENAI_API_KEY ?? "bench", model: "paced", configuration: { baseURL: process.env.OPENAI_BASE_URL }, maxRetries: 0 };
// Not `streaming: true`: under streamMode "messages" it streams anyway, and the JSON route takes one answer.
const model = new ChatOpenAI(openAi);
const checkpointer = SqliteSaver.fromConnString(process.env.SQLITE_PATH ?? ":memory:");

const oneNode = () =>
  new StateGraph(MessagesAnnotation)
    .addNode("model", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addEdge(START, "model")
    .compile({ checkpointer });

/** Our graph's shape and its two model calls a turn, nothing else (see the header). */
function sixNodes() {
  // The classification is one answer, as the memory graph asks for it: not streamed under the "messages" mode.
  const classifier = new ChatOpenAI({ ...openAi, disableStreaming: true });
  const State = Annotation.Root({ ...MessagesAnnotation.spec, event: Annotation<unknown>() });
  const nothing = async () => ({});
  return new StateGraph(State)
    .addNode("ingest_prompt", nothing)
    .addNode("recall", nothing)
    .addNode("call_model", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode("classify_event", async (state) => ({ event: await classifyWithModel(classifier, state.messages.at(-1)?.text ?? "") }))
    .addNode("build_candidate", nothing)
    .addNode("summarize", nothing)
    .addEdge(START, "ingest_prompt")
    .addConditionalEdges("ingest_prompt", (state) => (state.messages.length > 0 ? "recall" : END), ["recall", END])
    .addEdge("recall", "call_model")
    .addEdge("recall", "classify_event")
    .addEdge(["call_model", "classify_event"], "build_candidate")
    .addConditionalEdges("build_candidate", (state) => (state.messages.length % 40 === 0 ? "summarize" : END), ["summarize", END])
    .addEdge("summarize", END)
    .compile({ checkpointer });
}

interface Body {
  user_id: string;
  session_id: string;
  message: string;
}

const sixNodeShape = process.env.BARE_SHAPE === "six_nodes";
const graph = sixNodeShape ? sixNodes() : oneNode();

// The floor checkpoints once a turn, as the memory graph does; the bare chatbot keeps LangGraph's default.
const config = (body: Body) => ({ configurable: { thread_id: `${body.user_id}:${body.session_id}` }, ...(sixNodeShape ? { durability: "exit" as const } : {}) });

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
