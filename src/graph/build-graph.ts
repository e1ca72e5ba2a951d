import { setImmediate as nextMacrotask } from "node:timers/promises";
import { END, START, StateGraph, type BaseCheckpointSaver, type BaseStore } from "@langchain/langgraph";
import { buildCandidate } from "./nodes/build-candidate.js";
import { createCallModelNode } from "./nodes/call-model.js";
import { createClassifyEventNode } from "./nodes/classify-event.js";
import type { GraphDeps } from "./nodes/deps.js";
import { createIngestPromptNode } from "./nodes/ingest-prompt.js";
import { createRecallNode } from "./nodes/recall.js";
import { createSummarizeNode, summaryDue } from "./nodes/summarize.js";
import { NODE } from "./state/node-names.js";
import { inSpan } from "../telemetry.js";
import { z } from "zod";
import { createStateAnnotation, type MemoryState, type PlannedTurn } from "./state/state.js";
import type { StudioTurnInput } from "./state/studio-input.js";
import { turnInputSchema } from "./state/turn-input.js";

/**
 * `node`, started on a macrotask of its own. The SQLite engine answers synchronously, so a turn's
 * awaits never leave the microtask queue: without this, a whole turn (tens of milliseconds) runs
 * as one block and every other request of the process — /healthz too — waits behind it.
 */
function yielding<S, C, R>(name: string, node: (state: S, config: C) => Promise<R> | R) {
  return async (state: S, config: C): Promise<R> => {
    await nextMacrotask();
    // With tracing on, each node is a span of the turn (its model and store calls inside it).
    return inSpan(`node ${name}`, { "memory_graph.node": name }, async () => node(state, config));
  };
}

/** After ingest_prompt: a turn without prompt text ends at once (status SKIP). */
export function routeAfterIngest(state: MemoryState): typeof NODE.recall | typeof END {
  return state.status === "SKIP" ? END : NODE.recall;
}

/**
 * After build_candidate: summarize when enough pairs have passed since the last summary — unless
 * summaries are made apart from the run (`summariesApart`), by whoever runs it. (Even then the
 * edge stays a branch: LangGraph refuses a graph with a node no edge reaches, and summarize must
 * stay, as the node a summary made apart commits as.)
 */
export function routeAfterCandidate(interval: number, summariesApart = false) {
  return (state: MemoryState): typeof NODE.summarize | typeof END => (!summariesApart && summaryDue(state, interval) ? NODE.summarize : END);
}

/** The input of the facade's runs: the turn it planned and checked (see `planTurn`), one value. */
const plannedInputSchema = z.object({ plan: z.custom<PlannedTurn>((value) => typeof value === "object" && value !== null) }).strict();

/**
 * The memory graph, not yet compiled (each node starts on a macrotask of its own, in a span of its own when tracing is on; see `yielding`):
 * START → ingest_prompt → (SKIP → END) recall → [call_model ‖ classify_event] → build_candidate
 * → (summary due → summarize) → END. call_model and classify_event run in the same step; every
 * channel both write has a merging reducer, and call_model reads nothing classify_event writes.
 * A run's input is a TurnInput (`{tenantId, userId, sessionId, message}` and the optional fields):
 * checked against `turnInputSchema` before anything runs or is written. With `planned` (the
 * facade's graph), a run's input is one value instead, the turn it planned: `{ plan }`. With
 * `summariesApart` (the facade's graph again: it makes summaries off the session's lock, see
 * app/upkeep.ts), a run ends after build_candidate and summarize is left to the caller. With
 * `studioInput` (the LangGraph dev server's entry), a run's TurnInput is described and checked by
 * it instead (required fields in its JSON schema, our error codes for a bad input), and the input
 * errors ingest_prompt finds against the store are reported with their codes too.
 */
export function buildGraph(deps: GraphDeps, options: { planned?: boolean; summariesApart?: boolean; studioInput?: StudioTurnInput } = {}) {
  const input = (options.planned ? plannedInputSchema : (options.studioInput ?? turnInputSchema)) as typeof turnInputSchema;
  const ingestPrompt = createIngestPromptNode(deps);
  return new StateGraph(createStateAnnotation(deps.limits.window, { planned: options.planned }), { input })
    .addNode(NODE.ingestPrompt, yielding(NODE.ingestPrompt, options.studioInput?.explaining(ingestPrompt) ?? ingestPrompt))
    .addNode(NODE.recall, yielding(NODE.recall, createRecallNode(deps)))
    .addNode(NODE.classifyEvent, yielding(NODE.classifyEvent, createClassifyEventNode(deps)))
    .addNode(NODE.callModel, yielding(NODE.callModel, createCallModelNode(deps)))
    .addNode(NODE.buildCandidate, yielding(NODE.buildCandidate, buildCandidate))
    .addNode(NODE.summarize, yielding(NODE.summarize, createSummarizeNode(deps)))
    .addEdge(START, NODE.ingestPrompt)
    .addConditionalEdges(NODE.ingestPrompt, routeAfterIngest, [NODE.recall, END])
    // Only what the reply needs stands before call_model: classify_event runs beside it.
    .addEdge(NODE.recall, NODE.callModel)
    .addEdge(NODE.recall, NODE.classifyEvent)
    .addEdge([NODE.callModel, NODE.classifyEvent], NODE.buildCandidate)
    .addConditionalEdges(NODE.buildCandidate, routeAfterCandidate(deps.limits.summaryInterval, options.summariesApart), [NODE.summarize, END])
    .addEdge(NODE.summarize, END);
}

/**
 * The compiled graph with its persistence (both optional where a host, like Studio, injects them).
 * `planned`, `summariesApart` and `studioInput` as `buildGraph` says. `replyFirst` stops each run after build_candidate (an interrupt, so the turn is checkpointed
 * there): the caller has its result before upkeep, and resuming the run (`invoke(null)`) makes the
 * summary when one is due. A run that is never resumed loses nothing: the summary stays due and
 * the session's next turn makes it.
 */
export function compileGraph(
  deps: GraphDeps,
  persistence: { checkpointer?: BaseCheckpointSaver; store?: BaseStore } = {},
  options: { replyFirst?: boolean; planned?: boolean; summariesApart?: boolean; studioInput?: StudioTurnInput } = {},
) {
  return buildGraph(deps, options).compile({
    checkpointer: persistence.checkpointer,
    store: persistence.store,
    name: "memory_graph",
    ...(options.replyFirst ? { interruptAfter: [NODE.buildCandidate] } : {}),
  });
}

export type MemoryGraphApp = ReturnType<typeof compileGraph>;
