import "./env-log-level.js";

/**
 * `memory-graph/agent`: memory for an agent made with langchain's `createAgent` — one middleware
 * (`memoryMiddleware`) that recalls before the agent runs, stores and learns after it answers, and
 * can give the agent memory tools (`search_memory`, `remember`, `forget`).
 */
export { memoryMiddleware, MEMORY_TOOLS, type AgentContext, type AgentTurnResult, type MemoryMiddlewareHandle, type MemoryMiddlewareOptions, type MemoryToolName } from "../app/agent/memory-middleware.js";
