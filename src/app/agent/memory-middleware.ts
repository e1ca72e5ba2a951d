import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver, type BaseCheckpointSaver, type BaseStore } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { z } from "zod";
import { memoryBlock } from "../../memory/context.js";
import { correctionMarker, type Correction } from "../../memory/corrections.js";
import { textOf } from "../../messages/message-meta.js";
import { openMemoryGraph, type MemoryGraph, type MemoryGraphOptions } from "../create-memory-graph.js";
import { agentContextSchema } from "./agent-context.js";
import { agentParts, type AgentTurnResult } from "./agent-parts.js";
import type { AgentTurn } from "./agent-turn.js";
import { memoryToolsOf, type MemoryToolName } from "./memory-tools.js";
import { createTurnEnd } from "./turn-end.js";
import { createTurnStart } from "./turn-start.js";

export type { AgentContext } from "./agent-context.js";
export type { AgentTurnResult } from "./agent-parts.js";
export { MEMORY_TOOLS, type MemoryToolName } from "./memory-tools.js";

/** The options of `memoryMiddleware`: where memory lives and how it is made, as `createMemoryGraph` takes them. */
export interface MemoryMiddlewareOptions extends Omit<MemoryGraphOptions, "chatModel" | "systemPrompt" | "memoryMode" | "sessionTitles" | "checkpointKeep"> {
  /**
   * The model memory asks to classify messages and write summaries (`classifierModel` and
   * `summaryModel` override it). Default: one made from `openai` when given, else none (the local
   * rules, as the graph runs offline). The agent's own model is the agent's.
   */
  model?: BaseChatModel | null;
  /** Any LangGraph store to keep memory in, instead of a backend (turns are then serialised in this process). */
  store?: BaseStore;
  /** Memory tools for the agent: `true` for `search_memory`, `remember` and `forget`, or a list of them. Default none. */
  tools?: boolean | readonly MemoryToolName[];
  /** Called with each turn's result once its memory is written (its classification and event; a due summary follows). */
  onTurn?: (result: AgentTurnResult) => void;
}

/** What the middleware offers beside its hooks. */
export interface MemoryMiddlewareHandle {
  /** The memory graph on the same persistence: the same memory through the graph's door (turns, search, items, export). */
  graph: MemoryGraph;
  /** A checkpointer on the same backend, for `createAgent({ checkpointer })` (Redis: sessions that expire by themselves). */
  checkpointer: BaseCheckpointSaver;
  store: BaseStore;
  /** Resolves once every answered turn's memory is written (classification, bookkeeping, a due summary). */
  settled(): Promise<void>;
  /** Waits for `settled()`, then closes the persistence it opened. */
  close(): Promise<void>;
}

/** The middleware's private state: the turn in progress (see `AgentTurn`), cleared when it is stored. */
const memoryStateSchema = z.object({ _memoryTurn: z.custom<AgentTurn | null>().optional() });

/**
 * Memory for an agent made with `createAgent` (langchain 1.x): one middleware, the graph's memory.
 * Before the agent runs, the last user message is recalled for (the graph's recall node, on the
 * same store) and the memory block — the sections, order and budget of the graph's prompt — is
 * added to the agent's system message for every model call of the turn. After the agent answers,
 * the turn is stored and, off the reply's path, classified into events and facts and summarized,
 * as the graph does it. Who the user is comes from the runtime context (`tenantId`, `userId`,
 * `sessionId`, checked as the graph checks them), with the graph's switches (`messageId`,
 * `useMemory`, `topK`, `memorySections`, `remember`). Opens its persistence as `createMemoryGraph`
 * does (SQLite by default; Postgres, Redis sessions, your own `persistence` or `store`); close it
 * when done.
 */
export async function memoryMiddleware(options: MemoryMiddlewareOptions = {}) {
  const { model, store, tools, onTurn, ...graphOptions } = options;
  const persistence = graphOptions.persistence ?? (store ? { checkpointer: new MemorySaver(), store } : undefined);
  // The model's name on a stored reply, when the reply does not say it: the agent's.
  const modelName = graphOptions.modelName ?? "agent";
  // Without `model`, memory's model is the one `openai` describes, else none (as the graph's is).
  const { graph, deps, scoped } = await openMemoryGraph({ ...graphOptions, ...(persistence ? { persistence } : {}), ...(model === undefined ? {} : { chatModel: model }), modelName });
  const parts = agentParts(graph, deps, scoped, onTurn);
  const startTurn = createTurnStart(parts);
  const endTurn = createTurnEnd(parts);
  const middleware = createMiddleware({
    name: "memory",
    stateSchema: memoryStateSchema,
    contextSchema: agentContextSchema,
    tools: memoryToolsOf(parts, tools),
    beforeAgent: { canJumpTo: ["end"], hook: (state, runtime) => scoped(() => startTurn(state.messages, runtime.context)) },
    wrapModelCall: (request, handler) => {
      const turn = request.state._memoryTurn;
      const block = turn?.memoryText ? memoryBlock(turn.memoryText) : "";
      const corrections = turn?.recalled?.corrections ?? [];
      if (!turn || (!block && corrections.length === 0)) return handler(request);
      const systemMessage = !block ? request.systemMessage : request.systemMessage.text ? request.systemMessage.concat(`\n\n${block}`) : new SystemMessage(block);
      return handler({ ...request, systemMessage, messages: correctedHistory(request.messages, turn.user.id, corrections) });
    },
    afterAgent: (state) => scoped(() => endTurn(state.messages, state._memoryTurn)),
  });
  const handle: MemoryMiddlewareHandle = {
    graph,
    checkpointer: graph.persistence.checkpointer,
    store: graph.persistence.store,
    settled: parts.settled,
    close: async () => {
      await parts.settled();
      await graph.close();
    },
  };
  return Object.assign(middleware, handle);
}

/**
 * The agent's messages with each earlier user or assistant text that states a fact's old value
 * carrying the change in front of it, as the graph's prompt corrects its history (`assemblePrompt`);
 * the turn's own message and tool messages as they are. Only what the model is sent changes.
 */
function correctedHistory(messages: BaseMessage[], turnMessageId: string, corrections: readonly Correction[]): BaseMessage[] {
  if (corrections.length === 0) return messages;
  const correct = correctionMarker(corrections);
  return messages.map((message) => {
    if (message.id === turnMessageId || typeof message.content !== "string") return message;
    const isAnswer = AIMessage.isInstance(message) && (message.tool_calls ?? []).length === 0;
    if (!HumanMessage.isInstance(message) && !isAnswer) return message;
    const text = correct(textOf(message));
    if (text === message.content) return message;
    return HumanMessage.isInstance(message) ? new HumanMessage({ id: message.id, content: text }) : new AIMessage({ id: message.id, content: text });
  });
}
