import { InMemoryStore } from "@langchain/langgraph";
import type { GraphDeps } from "../../src/graph/nodes/deps.js";
import { resolveLimits } from "../../src/memory/limits.js";
import { DEFAULT_SYSTEM_PROMPT } from "../../src/app/defaults.js";
import { createMemoryGraph, type MemoryGraphOptions } from "../../src/app/create-memory-graph.js";
import { EMPTY_SESSION, type MemoryState } from "../../src/graph/state/state.js";
import { MemorySaver } from "@langchain/langgraph";

/** A clock tests move by hand. */
export function manualClock(start = "2026-11-01T10:00:00.000Z") {
  let now = Date.parse(start);
  return {
    now: () => new Date(now),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** Sequential ids, readable in failures. */
export function sequentialIds(prefix = "id") {
  let n = 0;
  return () => `${prefix}-${++n}`;
}

/** Node dependencies for calling a node alone: offline, default limits, no retry delay. */
export function testDeps(overrides: Partial<GraphDeps> = {}): GraphDeps {
  return {
    chatModel: null,
    modelName: "fake",
    limits: resolveLimits(),
    memoryMode: "conversation",
    systemPrompt: DEFAULT_SYSTEM_PROMPT,
    retry: { retries: 1, baseDelayMs: 1 },
    now: () => new Date("2026-11-01T10:00:00.000Z"),
    newId: sequentialIds(),
    ...overrides,
  };
}

/** A state literal with the defaults every channel starts from (no run input fields: those are the graph's to set). */
export function stateOf(values: Partial<MemoryState>): MemoryState {
  return {
    plan: undefined,
    tenantId: undefined,
    userId: undefined,
    sessionId: undefined,
    message: undefined,
    prompts: undefined,
    messageId: undefined,
    parentMessageId: undefined,
    files: undefined,
    metadata: undefined,
    useMemory: undefined,
    topK: undefined,
    memorySections: undefined,
    remember: undefined,
    input: null,
    scope: null,
    messages: [],
    nodeMessages: {},
    trim: null,
    session: EMPTY_SESSION,
    turn: null,
    recalled: null,
    memoryText: null,
    memoryUse: null,
    event: null,
    candidate: null,
    llmText: "",
    status: "OK",
    errors: [],
    usage: [],
    ...values,
  };
}

/** A memory graph on MemorySaver + InMemoryStore (both reachable for assertions). */
export async function memoryGraphForTest(options: MemoryGraphOptions = {}) {
  const store = new InMemoryStore();
  const checkpointer = new MemorySaver();
  const graph = await createMemoryGraph({
    persistence: { checkpointer, store },
    chatModel: null,
    retry: { retries: 1, baseDelayMs: 1 },
    ...options,
  });
  return { graph, store, checkpointer };
}

export const scope = { tenantId: "acme", userId: "u1", sessionId: "s1" };
