/**
 * One side of `bench/agent-cost.ts`, run as a child process: a `createAgent` agent (langchain 1.x)
 * whose model is the real `ChatOpenAI` client pointed at the benchmark's stand-in
 * (OPENAI_BASE_URL, API key OPENAI_API_KEY), its threads kept by the official `SqliteSaver` on
 * SQLITE_PATH. With MEMORY_PATH set, the same agent with `memoryMiddleware` on that SQLite file
 * (memory's own model and embeddings at the same stand-in, API key `<key>-memory`). With
 * HOOKS_ONLY=1, the agent with a middleware of the same shape that does nothing (the same hooks and
 * private state channel, no memory): what the shape of the middleware costs LangGraph.
 * It answers the parent's IPC messages: `round` (every session of the round streams its next turn
 * at once, streamMode "messages"; replies with the turns' timings and this process's CPU when the
 * round began) and `cpu` (the CPU so far, after the middleware's work after its replies is done).
 */
import { HumanMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, createMiddleware } from "langchain";
import { z } from "zod";
import { memoryMiddleware } from "../../src/entries/agent.js";

/** What the parent asks. */
export type ChildRequest = { type: "round"; prefix: string; sessions: number; message: string } | { type: "cpu" } | { type: "stop" };

/** One turn as the child timed it: to the first streamed token of the reply, and to the end of the stream. */
export interface AgentTiming {
  ttft: number;
  turn: number;
  tokens: number;
}

/** What the child answers: a round's timings with its CPU at the round's start, or the CPU now (ms, user + system). */
export type ChildReply = { type: "round"; cpuMs: number; timings: AgentTiming[] } | { type: "cpu"; cpuMs: number } | { type: "ready" };

const key = process.env.OPENAI_API_KEY ?? "bench";
const baseURL = process.env.OPENAI_BASE_URL;
const model = new ChatOpenAI({ apiKey: key, model: "paced", configuration: { baseURL }, maxRetries: 0 });
const checkpointer = SqliteSaver.fromConnString(process.env.SQLITE_PATH ?? ":memory:");
const memoryPath = process.env.MEMORY_PATH;
const memory = memoryPath
  ? await memoryMiddleware({ sqlitePath: memoryPath, openai: { apiKey: `${key}-memory`, baseUrl: baseURL, model: "paced", timeoutMs: 60_000, maxRetries: 0 }, logger: false })
  : undefined;
/** The middleware's shape without its work: `beforeAgent`, `wrapModelCall` and `afterAgent` hooks over a private state channel. */
const hooksOnly = () =>
  createMiddleware({
    name: "memory",
    stateSchema: z.object({ _memoryTurn: z.custom<unknown>().optional() }),
    beforeAgent: () => ({ _memoryTurn: null }),
    wrapModelCall: (request, handler) => handler(request),
    afterAgent: () => ({ _memoryTurn: null }),
  });
const middleware = memory ? [memory] : process.env.HOOKS_ONLY ? [hooksOnly()] : [];
const agent = createAgent({ model, systemPrompt: "You are a helpful assistant.", middleware, checkpointer });

const cpuMs = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

/** One turn of a session, streamed with streamMode "messages": timed to the reply's first token. */
async function turn(session: string, message: string): Promise<AgentTiming> {
  const started = performance.now();
  const context = { tenantId: "bench", userId: `user-${session}`, sessionId: session };
  const stream = await agent.stream({ messages: [new HumanMessage(message)] }, { streamMode: "messages", context, configurable: { thread_id: session } });
  let ttft = 0;
  let tokens = 0;
  for await (const [chunk, metadata] of stream) {
    // The reply's tokens: the agent's model node (a middleware's own model calls are not the reply).
    if ((metadata as { langgraph_node?: string }).langgraph_node !== "model_request" || chunk.getType() !== "ai" || !chunk.text) continue;
    tokens += 1;
    if (!ttft) ttft = performance.now() - started;
  }
  return { ttft, turn: performance.now() - started, tokens };
}

const send = (reply: ChildReply) => process.send?.(reply);

process.on("message", (request: ChildRequest) => {
  void (async () => {
    if (request.type === "round") {
      const at = cpuMs();
      const timings = await Promise.all(Array.from({ length: request.sessions }, (_, s) => turn(`${request.prefix}${s}`, request.message)));
      send({ type: "round", cpuMs: at, timings });
    } else if (request.type === "cpu") {
      await memory?.settled();
      send({ type: "cpu", cpuMs: cpuMs() });
    } else {
      await memory?.close();
      process.exit(0);
    }
  })().catch((error: unknown) => {
    process.stderr.write(`agent-child: ${String(error instanceof Error ? error.stack : error)}\n`);
    process.exit(1);
  });
});
send({ type: "ready" });
