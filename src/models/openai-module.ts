import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type * as OpenAi from "@langchain/openai";

/**
 * `@langchain/openai` (with the `openai` SDK under it: about 230 module files), loaded the first
 * time a model client is built rather than when the graph's modules are imported, so that a process
 * with no model configured — a library user's import, an offline service — never loads it. It is
 * loaded synchronously (`createChatModel` and `createEmbeddings` are synchronous) as the same ES
 * module an `import` gets (Node's `require` of an ES module: its `import` entry resolved, then
 * required), so a `ChatOpenAI` built here is an instance of the class the caller imports, over the
 * same `@langchain/core`.
 */
const load = createRequire(import.meta.url);
let openAi: typeof OpenAi | undefined;

/** The `@langchain/openai` module, loaded on the first call. */
export function openAiModule(): typeof OpenAi {
  return (openAi ??= load(fileURLToPath(import.meta.resolve("@langchain/openai"))) as typeof OpenAi);
}

/** Whether `@langchain/openai` was loaded here already (a model client was built). */
export const openAiLoaded = (): boolean => openAi !== undefined;
