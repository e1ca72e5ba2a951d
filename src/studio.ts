import "dotenv/config";
import { loadEnv } from "./config.js";
import { graphDepsOf } from "./app/create-memory-graph.js";
import { optionsFromEnv } from "./app/options-from-env.js";
import { compileGraph } from "./graph/build-graph.js";
import { StudioTurnInput } from "./graph/state/studio-input.js";
import { setLogLevel } from "./logger.js";

/**
 * The LangGraph dev server's entry (langgraph.json points here). The server brings its own
 * checkpointer and store, so the graph is compiled without them; models come from the env.
 * A run's input is a TurnInput: `{"tenantId": "t", "userId": "u", "sessionId": "s", "message": "hi"}`,
 * described (required fields, descriptions) and checked by `StudioTurnInput`, so that a bad input
 * fails with our error's code, field and message rather than zod's.
 */
const env = loadEnv();
setLogLevel(env.LOG_LEVEL);

const deps = graphDepsOf(optionsFromEnv(env));
export const graph = compileGraph(deps, {}, { studioInput: new StudioTurnInput(deps.limits.maxPromptChars) });
