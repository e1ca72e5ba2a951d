import { AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { StreamMode } from "@langchain/langgraph";
import { MemoryGraphError } from "../errors.js";
import type { MemoryGraphApp } from "../graph/build-graph.js";
import { NODE } from "../graph/state/node-names.js";
import { withUpdate, type MemoryState, type MemoryUpdate } from "../graph/state/state.js";
import type { TurnInput } from "../graph/state/turn-input.js";
import type { WindowLimits } from "../graph/reducers/window.js";
import type { TurnConfig } from "../resilience/degraded-mode.js";

/** The key LangGraph streams an interrupt (here: the planned stop after build_candidate) under. */
const INTERRUPT = "__interrupt__";

type RunConfig = TurnConfig & { signal?: AbortSignal };

/**
 * The facade's graph takes a planned turn, `{ plan }`, as its one input (see `buildGraph`); its
 * compiled type keeps the input schema of the graph alone, which is what callers of `app` send.
 */
export const asGraphInput = (input: { plan: unknown }) => input as unknown as TurnInput;

/** What a run of a turn tells its caller before it ends. */
export interface RunListeners {
  /** Each piece of call_model's reply as it is produced (the whole reply at once when the model does not stream). */
  onToken?: (text: string) => void;
  /**
   * The state once call_model is done, as its step will leave it — with whatever else of that step
   * (classify_event) finished before it — so the reply need not wait for the rest of the step.
   */
  onReply?: (state: MemoryState) => void;
}

/** Runs the planned turn to its stop like `graph.invoke`, returning the state it ended in, and tells `listeners` on the way. */
export function runGraphTurn(listeners: RunListeners, limits: WindowLimits) {
  const { onToken, onReply } = listeners;
  const modes: StreamMode[] = ["values", ...(onReply ? (["updates"] as const) : []), ...(onToken ? (["messages"] as const) : [])];
  return async (graph: MemoryGraphApp, input: { plan: unknown }, config: RunConfig): Promise<MemoryState> => {
    const stream = await graph.stream(asGraphInput(input), { ...config, streamMode: modes });
    let final: MemoryState | null = null;
    // The last step's state with the updates of this step's finished nodes applied.
    let stepState: MemoryState | null = null;
    let streamed = false;
    for await (const [mode, payload] of stream as AsyncIterable<[StreamMode, unknown]>) {
      if (mode === "values") {
        // The stop after build_candidate comes as a values chunk of its own: `{ __interrupt__: [] }`.
        if (!(INTERRUPT in (payload as object))) final = stepState = payload as MemoryState;
      } else if (mode === "updates") {
        for (const [node, update] of Object.entries(payload as Record<string, MemoryUpdate | undefined>)) {
          if (node === INTERRUPT || !update || !stepState) continue;
          stepState = withUpdate(stepState, update, limits);
          if (node === NODE.callModel) onReply?.(stepState);
        }
      } else {
        const [message, metadata] = payload as [BaseMessage, { langgraph_node?: string }];
        if (metadata.langgraph_node !== NODE.callModel || message.getType() !== "ai") continue;
        // A streaming model sends chunks, then the node's finished reply: forward one or the other.
        const chunk = AIMessageChunk.isInstance(message);
        if (!chunk && streamed) continue;
        streamed ||= chunk;
        const text = message.text;
        if (text) onToken?.(text);
      }
    }
    if (!final) throw new MemoryGraphError("STREAM_EMPTY", "the graph produced no state", { kind: "system" });
    return final;
  };
}
