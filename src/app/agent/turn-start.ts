import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { messageToRecord, newestMessage, saveTranscriptMessage } from "../../memory/transcript.js";
import { createRecallNode } from "../../graph/nodes/recall.js";
import { planTurn, type TurnPlan } from "../../graph/nodes/turn.js";
import { userRowWriter } from "../../graph/nodes/user-row.js";
import { NODE } from "../../graph/state/node-names.js";
import { applyMessages } from "../../graph/reducers.js";
import type { ValidTurn } from "../../graph/state/turn-input.js";
import { agentTurnOf } from "./agent-context.js";
import type { AgentParts } from "./agent-parts.js";
import { memoryStateOf, newUserRecord, userMessageOf, type AgentTurn } from "./agent-turn.js";
import { followMemory, markedStored, storedAs } from "./follow-memory.js";

/** What `beforeAgent` gives the agent's state: the turn (or none), the user message under its stored id, or a replayed answer. */
export interface TurnStart {
  _memoryTurn: AgentTurn | null;
  messages?: BaseMessage[];
  jumpTo?: "end";
}

/**
 * The start of an agent's turn, as the graph starts one: the context's ids and switches checked
 * with the new user message (the last message of the agent's state, when it is a user's; none, no
 * turn), then, as the session's one writer, the turn planned (`planTurn`: a `messageId` sent again
 * replays the answer it got — the model is not called and nothing is written — or re-answers a
 * message stored by a try that got no answer; another text under it is MESSAGE_ID_CONFLICT), the
 * user message stored (when the turn is remembered; after the model call starts, with an
 * embeddings provider, as call_model does) and memory recalled by the graph's recall node.
 */
export function createTurnStart(parts: AgentParts) {
  const { deps, store } = parts;
  const recall = createRecallNode(deps);
  return async function startTurn(messages: readonly BaseMessage[], context: unknown): Promise<TurnStart> {
    const last = messages.at(-1);
    const human = last && HumanMessage.isInstance(last) ? last : null;
    // The ids are checked before anything else, with or without a new message.
    const valid = agentTurnOf(context, human, { maxPromptChars: deps.limits.maxPromptChars, newId: deps.newId });
    if (!human || !valid.text) return { _memoryTurn: null };
    return parts.locked(valid.scope, async () => {
      const planned = await planTurn(store, valid, async () => null);
      if (planned.kind === "replay") return replayed(messages, human, valid, planned);
      const turn = await begun(parts, valid, planned, human);
      const earlier = messages.slice(0, -1);
      const followed = await followMemory(store, earlier);
      const window = [...applyMessages(earlier, followed), userMessageOf(turn.user)];
      const found = await recall(memoryStateOf(turn, window, null), { store } as LangGraphRunnableConfig);
      const recalled = { ...turn, recalled: found.recalled ?? null, memoryText: found.memoryText ?? null, memoryUse: found.memoryUse ?? null };
      const kept = turn.regenerated || turn.input.remember !== false;
      const update = [...followed, ...storedAs(messages, human, turn.user.id, kept ? turn.scope : null)];
      return { _memoryTurn: recalled, ...(update.length > 0 ? { messages: update } : {}) };
    });
  };
}

/** The turn planned to run: its user message (stored now, or its write started, unless incognito). */
async function begun(parts: AgentParts, valid: ValidTurn, planned: Extract<TurnPlan, { kind: "run" }>, human: HumanMessage): Promise<AgentTurn> {
  const { deps, store } = parts;
  const { plan } = planned;
  const now = deps.now().toISOString();
  const regenerated = plan.parent?.role === "user";
  const parentId = regenerated ? null : ((await newestMessage(store, valid.scope))?.id ?? null);
  const user = regenerated && plan.parent ? plan.parent : newUserRecord(valid.input.messageId ?? human.id ?? deps.newId(), valid.text, parentId, valid.scope.sessionId, now);
  const turn: AgentTurn = { id: deps.newId(), scope: valid.scope, input: plan.input, key: planned.key, user, regenerated, startedAt: now, recalled: null, memoryText: null, memoryUse: null };
  if (!regenerated && plan.input.remember !== false) {
    const write = saveTranscriptMessage(store, turn.scope, messageToRecord(userMessageOf(user), user.sessionId), { factKeys: deps.limits.recall.graph.factKeys });
    if (userRowWriter(deps) === NODE.ingestPrompt) await write;
    else parts.writes.start(turn.id, write);
  }
  return turn;
}

/** A retry of a turn that was answered: the answer it got, and the agent goes straight to its end. */
function replayed(messages: readonly BaseMessage[], human: HumanMessage, valid: ValidTurn, planned: Extract<TurnPlan, { kind: "replay" }>): TurnStart {
  const candidate = planned.result.candidate;
  const userId = planned.result.messageIds.user ?? valid.input.messageId ?? human.id ?? "";
  const answer = candidate ? [markedStored(new AIMessage({ id: candidate.id, content: candidate.text }), valid.scope)] : [];
  return { _memoryTurn: null, messages: [...storedAs(messages, human, userId, valid.scope), ...answer], jumpTo: "end" };
}
