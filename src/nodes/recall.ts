import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { renderMemoryContext } from "../memory/context.js";
import { recallContext } from "../memory/recall.js";
import { requireStore } from "../memory/store-io.js";
import type { MemoryState, MemoryUpdate } from "../state/state.js";
import type { GraphDeps } from "./deps.js";
import { scopeOfState, turnOf } from "./turn.js";

/**
 * recall: builds this turn's memory context from the store — recent stored turns, summaries,
 * current facts, important events and similar past messages — and renders it within the
 * context limits. Reads only.
 */
export function createRecallNode(deps: Pick<GraphDeps, "limits" | "embeddings">) {
  return async function recall(state: MemoryState, config: LangGraphRunnableConfig): Promise<MemoryUpdate> {
    const store = requireStore(config);
    const turn = turnOf(state);
    const excludeIds = new Set(state.messages.map((m) => m.id ?? "").filter(Boolean));
    excludeIds.add(turn.messageId);
    const recalled = await recallContext(store, {
      scope: scopeOfState(state),
      query: turn.text,
      excludeIds,
      limits: deps.limits.recall,
      embeddings: deps.embeddings,
    });
    return { recalled, memoryText: renderMemoryContext(recalled, deps.limits.context) };
  };
}
