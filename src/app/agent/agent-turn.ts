import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { withMeta } from "../../messages/message-meta.js";
import type { RenderedContext } from "../../memory/context.js";
import type { MemoryContext } from "../../memory/recall.js";
import type { TranscriptRecord } from "../../memory/records.js";
import type { MemoryScope } from "../../memory/scope.js";
import { recordToMessage } from "../../memory/transcript.js";
import type { AgentSession } from "../../memory/agent-sessions.js";
import { EMPTY_SESSION, type MemoryState, type MemoryUse } from "../../graph/state/state.js";
import { turnInputSchema, type TurnInput } from "../../graph/state/turn-input.js";

/**
 * One turn of an agent, from its start (`beforeAgent`) to its answer (`afterAgent`): what the graph
 * keeps of a turn in its state, kept in the agent's state (the middleware's private `_memoryTurn`,
 * cleared when the turn is stored), plain JSON so that any checkpointer keeps it.
 */
export interface AgentTurn {
  /** This turn's own id (a re-answer takes a stored message's id, so that cannot serve). */
  id: string;
  scope: MemoryScope;
  /** The turn as planned (a re-answer's has the stored message as its parent, and no `messageId`). */
  input: TurnInput;
  /** The client's idempotency key (the context's `messageId`), when it gave one: the turn's result is recorded under it. */
  key: string | null;
  /** The user message, as stored (or as it would be, for an incognito turn). */
  user: TranscriptRecord;
  /** True when the turn answers a message stored by an earlier try (the graph's regeneration of it). */
  regenerated: boolean;
  startedAt: string;
  recalled: MemoryContext | null;
  memoryText: RenderedContext | null;
  memoryUse: MemoryUse | null;
}

/** The run's input channels of the graph state, all empty (a planned turn's state has none set). */
const NO_RUN_INPUT = Object.fromEntries(Object.keys(turnInputSchema.shape).map((key) => [key, undefined])) as { [K in keyof TurnInput]-?: undefined };

/**
 * The graph state a node of this turn reads, as the graph would hold it at that node: the turn, its
 * input and scope, the session's bookkeeping, what recall found, and `window` (the messages the
 * agent has, with the turn's user message as stored, so that its index text and vector are those
 * recall started). The graph's nodes run on it unchanged (recall, classify_event), and the turn's
 * result is read from it as from the graph's (`turnResultOf`).
 */
export function memoryStateOf(turn: AgentTurn, window: readonly BaseMessage[], session: Pick<AgentSession, "lastIntent" | "activeEntities"> | null, reply?: { id: string; model: string }): MemoryState {
  return {
    ...NO_RUN_INPUT,
    plan: undefined,
    input: turn.input,
    scope: turn.scope,
    messages: [...window],
    nodeMessages: {},
    trim: null,
    session: { ...EMPTY_SESSION, ...(session ? { lastIntent: session.lastIntent, activeEntities: session.activeEntities } : {}) },
    turn: {
      id: turn.id,
      messageId: turn.user.id,
      text: turn.user.text,
      startedAt: turn.startedAt,
      regenerated: turn.regenerated,
      sessionExpired: false,
      replyId: reply?.id ?? null,
      model: reply?.model ?? null,
    },
    recalled: turn.recalled,
    memoryText: turn.memoryText,
    memoryUse: turn.memoryUse,
    event: null,
    candidate: null,
    llmText: "",
    status: "OK",
    errors: [],
    usage: [],
  };
}

/** The turn's user message as the graph's window holds it (with its parent and time). */
export function userMessageOf(user: TranscriptRecord): BaseMessage {
  return recordToMessage(user);
}

/** The user message a new turn stores: the text under `id`, following `parentId`. */
export function newUserRecord(id: string, text: string, parentId: string | null, sessionId: string, createdAt: string): TranscriptRecord {
  return { id, role: "user", text, parentId, sessionId, createdAt };
}

/** The reply as the graph's window holds it: the agent's answer under its id, following the turn's user message. */
export function replyMessageOf(turn: AgentTurn, id: string, text: string, createdAt: string): AIMessage {
  return withMeta(new AIMessage({ id, content: text }), { parentId: turn.user.id, createdAt });
}
