import { AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { MemoryGraphError } from "../errors.js";
import type { MemoryGraphApp } from "../graph/build-graph.js";
import { NODE } from "../graph/state/node-names.js";
import type { MemoryState } from "../graph/state/state.js";
import type { TurnInput } from "../graph/state/turn-input.js";
import type { TurnConfig } from "../resilience/degraded-mode.js";

/** The key LangGraph streams an interrupt (here: the planned stop after build_candidate) under. */
const INTERRUPT = "__interrupt__";

type RunConfig = TurnConfig & { signal?: AbortSignal };

/**
 * The facade's graph takes a planned turn, `{ plan }`, as its one input (see `buildGraph`); its
 * compiled type keeps the input schema of the graph alone, which is what callers of `app` send.
 */
export const asGraphInput = (input: { plan: unknown }) => input as unknown as TurnInput;

/**
 * Runs the planned turn to its stop like `graph.invoke`, returning the state it ended in, and hands
 * each piece of call_model's reply to `onToken` as it is produced (the whole reply at once when the
 * model does not stream, as offline).
 */
export function streamGraphTurn(onToken: (text: string) => void) {
  return async (graph: MemoryGraphApp, input: { plan: unknown }, config: RunConfig): Promise<MemoryState> => {
    const stream = await graph.stream(asGraphInput(input), { ...config, streamMode: ["messages", "values"] });
    let final: MemoryState | null = null;
    let streamed = false;
    for await (const [mode, payload] of stream) {
      if (mode === "values") {
        // The stop after build_candidate comes as a values chunk of its own: `{ __interrupt__: [] }`.
        if (!(INTERRUPT in payload)) final = payload;
        continue;
      }
      const [message, metadata] = payload as [BaseMessage, { langgraph_node?: string }];
      if (metadata.langgraph_node !== NODE.callModel || message.getType() !== "ai") continue;
      // A streaming model sends chunks, then the node's finished reply: forward one or the other.
      const chunk = AIMessageChunk.isInstance(message);
      if (!chunk && streamed) continue;
      streamed ||= chunk;
      const text = message.text;
      if (text) onToken(text);
    }
    if (!final) throw new MemoryGraphError("STREAM_EMPTY", "the graph produced no state", { kind: "system" });
    return final;
  };
}
