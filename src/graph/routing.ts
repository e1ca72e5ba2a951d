import { END } from "@langchain/langgraph";
import { NODE } from "./state/node-names.js";
import type { MemoryState } from "./state/state.js";
import { summaryDue } from "./nodes/summarize.js";

/** After ingest_prompt: a turn without prompt text ends at once (status SKIP). */
export function routeAfterIngest(state: MemoryState): typeof NODE.recall | typeof END {
  return state.status === "SKIP" ? END : NODE.recall;
}

/** After build_candidate: summarize when enough pairs have passed since the last summary. */
export function routeAfterCandidate(interval: number) {
  return (state: MemoryState): typeof NODE.summarize | typeof END => (summaryDue(state, interval) ? NODE.summarize : END);
}
