import type { BaseStore, LangGraphRunnableConfig } from "@langchain/langgraph";
import { messageOf } from "../../errors.js";
import { log } from "../../logger.js";
import type { SummaryRecord, TranscriptRecord } from "../../memory/records.js";
import type { MemoryScope } from "../../memory/scope.js";
import { requireStore } from "../../memory/store-io.js";
import { saveSummary } from "../../memory/summaries.js";
import { walkThread } from "../../memory/transcript.js";
import { summarizeByRules } from "../../rules/rule-summarizer.js";
import { summarizeWithModel } from "../../models/structured.js";
import { isTransientError, withRetry } from "../../models/chat-model.js";
import { inModelSpan, modelNameOf } from "../../models/model-span.js";
import { usageOfReply, type ModelUsage } from "../../models/usage.js";
import type { NodeError } from "../reducers.js";
import { NODE } from "../state/node-names.js";
import type { MemoryState, MemoryUpdate, SessionInfo } from "../state/state.js";
import { retryOptions, summarizerOf, type GraphDeps } from "./deps.js";
import { scopeOfState } from "./turn.js";

/** True when enough user/assistant pairs have passed since the last summary. */
export function summaryDue(state: MemoryState, interval: number): boolean {
  return state.status === "OK" && state.session.pairsSinceSummary >= interval;
}

/** A summary made from a session's messages, with what its model calls used and what fell back. */
export interface MadeSummary {
  /** Null when there was nothing to summarize. */
  summary: SummaryRecord | null;
  errors: NodeError[];
  usage: ModelUsage[];
}

/**
 * Makes the summary of the session's messages since its last summary, without storing it: walks
 * back from the newest message to the one the last summary covers (bounded), then asks the model
 * for 4–6 bullets, or the rule-based summarizer when the model is missing or fails.
 */
export async function makeSummary(deps: GraphDeps, store: BaseStore, scope: MemoryScope, session: SessionInfo, turnId?: string): Promise<MadeSummary> {
  const leaf = session.lastMessageId;
  const since = leaf ? await walkThread(store, scope, leaf, { stopAfterId: session.summarizedThroughId, max: deps.limits.recall.maxCandidates }) : [];
  const first = since[0];
  const last = since[since.length - 1];
  if (!first || !last) return { summary: null, errors: [], usage: [] };
  const { text, method, errors, usage } = await summaryText(deps, since, turnId);
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
  return { summary, errors, usage };
}

async function summaryText(deps: GraphDeps, since: TranscriptRecord[], turnId?: string) {
  const model = summarizerOf(deps);
  // The offline responder's replies are kept in the transcript but are not conversation.
  const lines = since.filter((m) => m.recall !== false).map((m) => ({ id: m.id, role: m.role, text: m.text }));
  const errors: NodeError[] = [];
  const usage: ModelUsage[] = [];
  if (model) {
    try {
      const onUsage = (reply: Parameters<typeof usageOfReply>[1]) => usage.push(...usageOfReply(NODE.summarize, reply));
      const summarizeLines = () => withRetry(() => summarizeWithModel(model, lines, {}, onUsage), { ...retryOptions(deps), isRetryable: isTransientError });
      const text = await inModelSpan(NODE.summarize, modelNameOf(model, deps.modelName), summarizeLines, () => usage);
      return { text, method: "model" as const, errors, usage };
    } catch (error) {
      errors.push({ node: NODE.summarize, code: "SUMMARY_FALLBACK", message: messageOf(error), turnId });
      log.warn("summary_fallback", { error: messageOf(error) });
    }
  }
  return { text: summarizeByRules(lines).text, method: "rules" as const, errors, usage };
}

/**
 * What the session holds once `made` is stored: the pairs it covered (`coveredPairs`, counted when
 * it was started) no longer count towards the next summary, and its last message is the newest
 * one summarized.
 */
export function summarizedSession(session: SessionInfo, made: MadeSummary, coveredPairs: number): Partial<SessionInfo> {
  const pairsSinceSummary = Math.max(0, session.pairsSinceSummary - coveredPairs);
  return made.summary ? { pairsSinceSummary, summarizedThroughId: made.summary.toMessageId } : { pairsSinceSummary };
}

/**
 * summarize: summarizes the thread's messages since the last summary (see `makeSummary`) and stores
 * the summary with the message-id range it covers. Never removes a message; a failed model summary
 * is recorded and the rule-based one kept. (The facade makes its summaries apart from the run, off
 * the session's lock: see app/upkeep.ts; this node makes them for a run of the graph alone.)
 */
export function createSummarizeNode(deps: GraphDeps) {
  return async function summarize(state: MemoryState, config: LangGraphRunnableConfig): Promise<MemoryUpdate> {
    const store = requireStore(config);
    const scope = scopeOfState(state);
    const made = await makeSummary(deps, store, scope, state.session, state.turn?.id);
    if (made.summary) await saveSummary(store, scope, made.summary);
    return { errors: made.errors, usage: made.usage, session: summarizedSession(state.session, made, state.session.pairsSinceSummary) };
  };
}
