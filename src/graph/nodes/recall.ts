import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { renderMemoryContext, type RenderedContext, type ShownItems } from "../../memory/context.js";
import { contextLimitsFor, memoryPlanOf, memoryReason, type MemoryPlan } from "../../memory/memory-plan.js";
import { embedOrSkip } from "../../memory/ranking/embed-or-skip.js";
import { recordIndexText } from "../../memory/ranking/document-text.js";
import { recallContext, type RecallPart } from "../../memory/recall.js";
import { carriedOverFor, type CarriedOver } from "../../memory/session-seed.js";
import { requireStore } from "../../memory/store-io.js";
import { messageToRecord } from "../../memory/transcript.js";
import { ReusingEmbeddings } from "../../memory/vector-reuse.js";
import { memoryNeedOf } from "../../rules/memory-need.js";
import type { MemoryState, MemoryUpdate } from "../state/state.js";
import { metrics } from "../../telemetry.js";
import type { GraphDeps } from "./deps.js";
import { humanForNode, scopeOfState, turnOf } from "./turn.js";

/** The memory block of a turn that used none. */
const NO_MEMORY: RenderedContext = { text: "", tokens: 0, sections: {}, droppedForBudget: 0 };

/**
 * recall: builds this turn's memory context from the store — recent stored turns, summaries,
 * current facts, important events and similar past messages — and renders it within the
 * context limits. Reads only. With embeddings, the new message's vector is started here (as the
 * message will be indexed: its text and date) and waited for at most `limits.recall.vectorWaitMs`;
 * a vector not back by then leaves recall lexical, and is stored with the message when call_model
 * indexes it (computed once: the deps' embeddings reuse it, see `ReusingEmbeddings`).
 *
 * The turn's own switches decide what is read: `useMemory: false` reads nothing; only the
 * `memorySections` asked for are read; `topK` similar messages are searched, and none when the
 * message needs no memory (it neither refers to what came before nor is about the user: decided
 * locally, see `memoryNeedOf`), so such a turn computes no query vector either. `memoryUse` says
 * whether memory was needed and what was used.
 */
export function createRecallNode(deps: Pick<GraphDeps, "limits" | "embeddings"> & Partial<Pick<GraphDeps, "now" | "profile">>) {
  return async function recall(state: MemoryState, config: LangGraphRunnableConfig): Promise<MemoryUpdate> {
    const turn = turnOf(state);
    const plan = memoryPlanOf(state.input ?? {}, deps.limits.recall);
    const need = memoryNeedOf(turn.text);
    if (!plan.useMemory) return { recalled: null, memoryText: NO_MEMORY, memoryUse: { needMemory: need !== "standalone", need, reason: memoryReason(plan, need, {}, false) } };
    const store = requireStore(config);
    const scope = scopeOfState(state);
    const parts = recallPartsOf(plan, need !== "standalone");
    const excludeIds = new Set(state.messages.map((m) => m.id ?? "").filter(Boolean));
    excludeIds.add(turn.messageId);
    const embeddings = deps.embeddings;
    const pendingVector =
      embeddings && turn.text.trim() && parts.has("similar")
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
      limits: plan.topK === deps.limits.recall.similarTopK ? deps.limits.recall : { ...deps.limits.recall, similarTopK: plan.topK },
      embeddings: parts.has("similar") ? embeddings : undefined,
      pendingVector,
      typicalVectorMs: embeddings instanceof ReusingEmbeddings ? embeddings.typicalMs() : undefined,
      parts,
      now: deps.now?.(),
    });
    const instruments = metrics();
    if (instruments) {
      instruments.recallLatency.record(performance.now() - started, { vector_search: recalled.vectorSearch ?? "off" });
      instruments.vectorSearch.add(1, { outcome: recalled.vectorSearch ?? "off" });
    }
    const rendered = renderMemoryContext(recalled, contextLimitsFor(plan, deps.limits.context), { profile: deps.profile });
    // The window's seed is shown as current memory has it now, within the sections asked for.
    const carried = await carriedOverFor(store, scope, state.messages, {
      summaries: parts.has("summaries"),
      facts: parts.has("facts"),
      recalledSummaries: recalled.summaries,
      recalledFacts: recalled.facts,
    });
    const memoryText = carried ? withCarried(rendered, carried) : rendered;
    const shown = Object.fromEntries(Object.entries(memoryText.sections).map(([name, lines]) => [name, lines.length]));
    return { recalled, memoryText, memoryUse: { needMemory: need !== "standalone", need, reason: memoryReason(plan, need, shown, parts.has("similar")) } };
  };
}

/** What recall reads for `plan`: the sections asked for ("history" is the recent stored turns), similar messages only when needed. */
function recallPartsOf(plan: MemoryPlan, needed: boolean): Set<RecallPart> {
  const parts = new Set<RecallPart>();
  for (const section of plan.sections) {
    if (section === "history") parts.add("recentTurns");
    else if (section !== "similar") parts.add(section);
    else if (needed && plan.topK > 0) parts.add("similar");
  }
  return parts;
}

/** `rendered` with the seed's text, and what the seed showed among what the turn showed (for its context record). */
function withCarried(rendered: RenderedContext, carried: CarriedOver): RenderedContext {
  const shown: ShownItems = rendered.shown ?? { messages: [], facts: [], events: [], summaries: [] };
  const union = (ids: string[], more: string[]) => [...new Set([...ids, ...more])];
  return { ...rendered, carried: carried.text, shown: { ...shown, facts: union(shown.facts, carried.shown.facts), summaries: union(shown.summaries, carried.shown.summaries) } };
}
