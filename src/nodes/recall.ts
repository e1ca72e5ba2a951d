import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { renderMemoryContext } from "../memory/context.js";
import { embedOrSkip } from "../memory/ranking/embed-or-skip.js";
import { recordIndexText } from "../memory/ranking/document-text.js";
import { recallContext } from "../memory/recall.js";
import { requireStore } from "../memory/store-io.js";
import { messageToRecord } from "../memory/transcript.js";
import { ReusingEmbeddings } from "../memory/vector-reuse.js";
import type { MemoryState, MemoryUpdate } from "../state/state.js";
import { metrics } from "../telemetry.js";
import type { GraphDeps } from "./deps.js";
import { humanForNode } from "./node-history.js";
import { scopeOfState, turnOf } from "./turn.js";

/**
 * recall: builds this turn's memory context from the store — recent stored turns, summaries,
 * current facts, important events and similar past messages — and renders it within the
 * context limits. Reads only. With embeddings, the new message's vector is started here (as the
 * message will be indexed: its text and date) and waited for at most `limits.recall.vectorWaitMs`;
 * a vector not back by then leaves recall lexical, and is stored with the message when call_model
 * indexes it (computed once: the deps' embeddings reuse it, see `ReusingEmbeddings`).
 */
export function createRecallNode(deps: Pick<GraphDeps, "limits" | "embeddings">) {
  return async function recall(state: MemoryState, config: LangGraphRunnableConfig): Promise<MemoryUpdate> {
    const store = requireStore(config);
    const turn = turnOf(state);
    const scope = scopeOfState(state);
    const excludeIds = new Set(state.messages.map((m) => m.id ?? "").filter(Boolean));
    excludeIds.add(turn.messageId);
    const embeddings = deps.embeddings;
    const pendingVector =
      embeddings && turn.text.trim()
        ? embedOrSkip("query", async () => {
            const indexText = recordIndexText({ ...messageToRecord(humanForNode(state), scope.sessionId) }) ?? turn.text;
            return (await embeddings.embedDocuments([indexText]))[0];
          })
        : undefined;
    const started = performance.now();
    const recalled = await recallContext(store, {
      scope,
      query: turn.text,
      excludeIds,
      limits: deps.limits.recall,
      embeddings,
      pendingVector,
      typicalVectorMs: embeddings instanceof ReusingEmbeddings ? embeddings.typicalMs() : undefined,
    });
    const instruments = metrics();
    if (instruments) {
      instruments.recallLatency.record(performance.now() - started, { vector_search: recalled.vectorSearch ?? "off" });
      instruments.vectorSearch.add(1, { outcome: recalled.vectorSearch ?? "off" });
    }
    return { recalled, memoryText: renderMemoryContext(recalled, deps.limits.context) };
  };
}
