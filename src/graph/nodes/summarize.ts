import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { messageOf } from "../../errors.js";
import { log } from "../../logger.js";
import type { SummaryRecord } from "../../memory/records.js";
import { requireStore } from "../../memory/store-io.js";
import { saveSummary } from "../../memory/summaries.js";
import { walkThread } from "../../memory/transcript.js";
import { summarizeByRules } from "../../rules/rule-summarizer.js";
import { summarizeWithModel } from "../../models/structured.js";
import { isTransientError, withRetry } from "../../models/chat-model.js";
import { inModelSpan, modelNameOf } from "../../models/model-span.js";
import { usageOfReply, type ModelUsage } from "../../models/usage.js";
import { NODE } from "../state/node-names.js";
import type { MemoryState, MemoryUpdate } from "../state/state.js";
import { retryOptions, type GraphDeps } from "./deps.js";
import { scopeOfState } from "./turn.js";

/** True when enough user/assistant pairs have passed since the last summary. */
export function summaryDue(state: MemoryState, interval: number): boolean {
  return state.status === "OK" && state.session.pairsSinceSummary >= interval;
}

/**
 * summarize: summarizes the thread's messages since the last summary (model, or the rule-based
 * summarizer when the model is missing or fails) and stores the summary with the message-id range
 * it covers. Never removes a message; a failed summary is recorded and retried next turn.
 */
export function createSummarizeNode(deps: GraphDeps) {
  const model = deps.summaryModel === undefined ? deps.chatModel : deps.summaryModel;
  return async function summarize(state: MemoryState, config: LangGraphRunnableConfig): Promise<MemoryUpdate> {
    const store = requireStore(config);
    const scope = scopeOfState(state);
    const leaf = state.session.lastMessageId;
    // The messages since the last summary: a bounded walk back from the newest one.
    const since = leaf
      ? await walkThread(store, scope, leaf, { stopAfterId: state.session.summarizedThroughId, max: deps.limits.recall.maxCandidates })
      : [];
    const first = since[0];
    const last = since[since.length - 1];
    if (!first || !last) return { session: { pairsSinceSummary: 0 } };

    // The offline responder's replies are kept in the transcript but are not conversation.
    const lines = since.filter((m) => m.recall !== false).map((m) => ({ id: m.id, role: m.role, text: m.text }));
    let modelText: string | null = null;
    const errors = [];
    const usage: ModelUsage[] = [];
    if (model) {
      try {
        const onUsage = (reply: Parameters<typeof usageOfReply>[1]) => usage.push(...usageOfReply(NODE.summarize, reply));
        const summarizeLines = () => withRetry(() => summarizeWithModel(model, lines, {}, onUsage), { ...retryOptions(deps), isRetryable: isTransientError });
        modelText = await inModelSpan(NODE.summarize, modelNameOf(model, deps.modelName), summarizeLines, () => usage);
      } catch (error) {
        errors.push({ node: NODE.summarize, code: "SUMMARY_FALLBACK", message: messageOf(error), turnId: state.turn?.id });
        log.warn("summary_fallback", { error: messageOf(error) });
      }
    }
    const text = modelText ?? summarizeByRules(lines).text;
    const method: SummaryRecord["method"] = modelText === null ? "rules" : "model";
    const summary: SummaryRecord = {
      id: `${scope.sessionId}:${last.id}`,
      text,
      sessionId: scope.sessionId,
      fromMessageId: first.id,
      toMessageId: last.id,
      messageIds: since.map((m) => m.id),
      method,
      createdAt: deps.now().toISOString(),
    };
    await saveSummary(store, scope, summary);
    return { errors, usage, session: { pairsSinceSummary: 0, summarizedThroughId: last.id } };
  };
}
