import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { log } from "../../logger.js";
import { countTokens } from "../../telemetry.js";
import { textOf } from "../../messages/message-meta.js";
import { EMPTY_AGENT_SESSION, readAgentSession, saveAgentSession, type AgentSession } from "../../memory/agent-sessions.js";
import { LateWrites } from "../../memory/late-writes.js";
import { answeredReplyTo, saveAnswer } from "../../memory/session-continuity.js";
import { saveSummary } from "../../memory/summaries.js";
import { messageToRecord } from "../../memory/transcript.js";
import type { TurnContextRecord } from "../../memory/turn-contexts.js";
import { getTurnRecord, saveTurnRecord } from "../../memory/turn-records.js";
import { buildCandidate, turnResultOf } from "../../graph/nodes/build-candidate.js";
import { createClassifier, keepClassification } from "../../graph/nodes/classify-event.js";
import { makeSummary, summarizedSession } from "../../graph/nodes/summarize.js";
import { EMPTY_SESSION, withUpdate } from "../../graph/state/state.js";
import type { AgentParts } from "./agent-parts.js";
import { memoryStateOf, replyMessageOf, userMessageOf, type AgentTurn } from "./agent-turn.js";
import { storedAs } from "./follow-memory.js";

/** What `afterAgent` gives the agent's state: the turn cleared, the reply under the id memory stored it under. */
export interface TurnEnd {
  _memoryTurn: null;
  messages?: BaseMessage[];
}

/**
 * The end of an agent's turn, as the graph ends one: the agent's answer (its last message, when
 * that is the model's text) stored with what its memory context showed, in one write, as the
 * session's one writer — unless a try of the same `messageId` was answered meanwhile (nothing is
 * written twice). Then, off the reply's path (see `finishTurn`): the user message classified as the
 * graph's classify_event node does (events, facts with their supersession and provenance), the session's
 * bookkeeping and the turn's result (under its idempotency key) stored, and the summary made when
 * one is due. A turn with no answer (the agent failed or stopped on a tool) leaves its user message
 * stored unanswered: a retry with its `messageId` answers it. An incognito turn (`remember: false`)
 * writes nothing but is classified, as the graph's is.
 */
export function createTurnEnd(parts: AgentParts) {
  const { deps, store } = parts;
  const classify = createClassifier(deps);
  return async function endTurn(messages: readonly BaseMessage[], turn: AgentTurn | null | undefined): Promise<TurnEnd | undefined> {
    if (!turn) return undefined;
    await parts.writes.finish(turn.id);
    const last = messages.at(-1);
    const text = last && AIMessage.isInstance(last) ? textOf(last) : "";
    if (!last || !text) return { _memoryTurn: null };
    const now = deps.now().toISOString();
    const answer = replyMessageOf(turn, deps.newId(), text, now);
    const named = (last.response_metadata as Record<string, unknown> | undefined)?.model_name;
    const model = typeof named === "string" && named ? named : deps.modelName;
    // The reply's vector is written after the answer, awaited with the turn's other work after it (`saveAnswer`).
    const later = new LateWrites();
    const stored = await parts.locked(turn.scope, async () => {
      if (turn.key !== null && (await answeredMeanwhile(parts, turn))) return false;
      if (turn.input.remember !== false) await saveAnswer(store, turn.scope, messageToRecord(answer, turn.scope.sessionId, { model }), contextOf(turn, answer.id ?? "", now), { markAnswer: true, later });
      return true;
    });
    parts.afterReply(turn.scope, () => later.settled());
    if (stored) parts.afterReply(turn.scope, () => finishTurn(parts, classify, turn, answer, model));
    const renamed = stored ? storedAs(messages, last, answer.id ?? "", turn.input.remember !== false ? turn.scope : null) : [];
    return { _memoryTurn: null, ...(renamed.length > 0 ? { messages: renamed } : {}) };
  };
}

/** True when a try of this turn's `messageId` was answered while this one ran (its record, or the session's mark, names an answer). */
async function answeredMeanwhile(parts: AgentParts, turn: AgentTurn): Promise<boolean> {
  if (turn.key !== null && (await getTurnRecord(parts.store, turn.scope, turn.key))) return true;
  return (await answeredReplyTo(parts.store, turn.scope, turn.user.id)) !== null;
}

/** What the turn's memory context showed the model, kept with its answer (as call_model keeps it). */
function contextOf(turn: AgentTurn, replyId: string, createdAt: string): TurnContextRecord {
  const memory = turn.memoryText;
  const shown = memory?.shown ?? { messages: [], facts: [], events: [], summaries: [] };
  return { messageId: turn.user.id, replyId, sessionId: turn.scope.sessionId, createdAt, tokens: memory?.tokens ?? 0, shown };
}

/**
 * The turn's work after its reply, in the order of the session's turns in this process: the user
 * message classified holding no lock (a classifier model call never keeps the session's next turn
 * waiting), then, as the session's one writer, what the classification found kept (events, facts),
 * the session's bookkeeping and the turn's result; then the due summary, made off the lock.
 */
async function finishTurn(parts: AgentParts, classify: ReturnType<typeof createClassifier>, turn: AgentTurn, answer: AIMessage, model: string): Promise<void> {
  const { deps, store } = parts;
  const { scope } = turn;
  const remember = turn.input.remember !== false;
  const messages = [userMessageOf(turn.user), answer];
  const reply = { id: answer.id ?? "", model };
  const done = await parts.inOrder(scope, async () => {
    const classification = await classify(memoryStateOf(turn, messages, await readAgentSession(store, scope), reply));
    return parts.locked(scope, async () => {
      const session = await readAgentSession(store, scope);
      const before = memoryStateOf(turn, messages, session, reply);
      const state = withUpdate(before, await keepClassification(deps, store, before, classification), deps.limits.window);
      const result = turnResultOf(withUpdate(state, buildCandidate(state)));
      countTokens(result.usage.calls, scope.tenantId);
      if (!remember) return { result, next: null };
      const next: AgentSession = {
        ...session,
        lastMessageId: answer.id ?? null,
        lastIntent: state.session.lastIntent,
        activeEntities: state.session.activeEntities,
        pairsSinceSummary: session.pairsSinceSummary + 1,
      };
      await saveAgentSession(store, scope, next);
      if (turn.key !== null) await saveTurnRecord(store, scope, { key: turn.key, text: turn.user.text, parentMessageId: null, result, createdAt: deps.now().toISOString() });
      return { result, next };
    });
  });
  parts.onTurn?.({ ...done.result, scope });
  if (done.next && done.next.pairsSinceSummary >= deps.limits.summaryInterval) await summarize(parts, turn, done.next);
}

/**
 * Makes the session's due summary from `from` (the session as this turn left it) off the lock, and
 * commits it under the lock unless the session was summarized meanwhile (then it is dropped, and the
 * pairs it would have covered stay due), as the facade's upkeep does with the graph's checkpoint.
 */
async function summarize(parts: AgentParts, turn: AgentTurn, from: AgentSession): Promise<void> {
  const { deps, store } = parts;
  const { scope } = turn;
  const made = await makeSummary(deps, store, scope, { ...EMPTY_SESSION, ...from }, turn.id);
  countTokens(made.usage, scope.tenantId);
  await parts.locked(scope, async () => {
    const current = await readAgentSession(store, scope);
    if (current.summarizedThroughId !== from.summarizedThroughId) {
      log.info("turn.summary_dropped", { reason: "the session was summarized meanwhile" });
      return;
    }
    if (made.summary) await saveSummary(store, scope, made.summary);
    await saveAgentSession(store, scope, { ...EMPTY_AGENT_SESSION, ...current, ...summarizedSession({ ...EMPTY_SESSION, ...current }, made, from.pairsSinceSummary) });
  });
}
