import "dotenv/config";
import { randomUUID } from "node:crypto";
import { loadEnv } from "./config.js";
import { optionsFromEnv } from "./app/options-from-env.js";
import { resolveLimits } from "./memory/limits.js";
import { createChatModel } from "./models/chat-model.js";
import { DEFAULT_SYSTEM_PROMPT } from "./app/defaults.js";
import { compileGraph } from "./graph/build-graph.js";
import { setLogLevel } from "./logger.js";

/**
 * The LangGraph dev server's entry (langgraph.json points here). The server brings its own
 * checkpointer and store, so the graph is compiled without them; models come from the env.
 * Send `{"input": {"tenantId": "t", "userId": "u", "sessionId": "s", "message": "hi"}}`.
 */
const env = loadEnv();
setLogLevel(env.LOG_LEVEL);
const options = optionsFromEnv(env);

export const graph = compileGraph({
  chatModel: options.openai ? createChatModel(options.openai) : null,
  modelName: options.openai?.model ?? "offline",
  embeddings: options.embeddings,
  limits: resolveLimits(options.limits),
  memoryMode: options.memoryMode ?? "conversation",
  systemPrompt: options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
  retry: { retries: 2, baseDelayMs: 250 },
  now: () => new Date(),
  newId: randomUUID,
});
