import { HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES, type BaseStore, type LangGraphRunnableConfig } from "@langchain/langgraph";
import { log } from "../../logger.js";
import { metaOf, withMeta } from "../../messages/message-meta.js";
import { threadCycle } from "../../messages/thread.js";
import { seedWindow } from "../../memory/session-seed.js";
import { messagesAhead } from "../../memory/session-continuity.js";
import { requireStore } from "../../memory/store-io.js";
import { messageToRecord, newestMessage, recordToMessage, saveTranscriptMessage, walkThread } from "../../memory/transcript.js";
import type { TranscriptRecord } from "../../memory/records.js";
import type { MemoryScope } from "../../memory/scope.js";
import { ValidTurn, type TurnInput } from "../state/turn-input.js";
import type { MemoryState, MemoryUpdate } from "../state/state.js";
import type { GraphDeps } from "./deps.js";
import { userRowWriter } from "./user-row.js";
import { NODE } from "../state/node-names.js";
import { bindThreadScope, planRunAlone, runInputOf, windowUpdate } from "./turn.js";

/**
 * ingest_prompt: turns the planned turn (the facade's, or the run's input fields planned here) into
 * `input` and one HumanMessage in the window (stored here without embeddings, see `userRowWriter`). No prompt text →
 * SKIP, nothing stored, and an EMPTY_PROMPT entry in `errors` saying so. A session idle past its TTL starts a new window seeded from long-term
 * memory. With `parentMessageId` only the thread from the root to that parent is shown: an
 * assistant parent gets the new message under it; a user parent is re-answered (regeneration).
 */
export function createIngestPromptNode(deps: GraphDeps) {
  return async function ingestPrompt(state: MemoryState, config: LangGraphRunnableConfig): Promise<MemoryUpdate> {
    const store = requireStore(config);
    // The facade planned its runs under the session's lock; a run of the graph alone plans here.
    const plan = state.plan ?? (await planRunAlone(store, ValidTurn.ofGraphInput(runInputOf(state), deps.limits.maxPromptChars)));
    const { input, text, parent } = plan;
    const scope = bindThreadScope(state.scope, { tenantId: input.tenantId, userId: input.userId, sessionId: input.sessionId });
    const now = deps.now();
    // A skipped run says why, in its errors (Studio shows them; so does the HTTP result).
    const why = { node: NODE.ingestPrompt, code: "EMPTY_PROMPT", message: "The turn has no message or prompt text: nothing was answered or stored (status SKIP)." };
    const skip: MemoryUpdate = { input, scope, status: "SKIP", candidate: null, llmText: "", event: null, recalled: null, memoryText: null, memoryUse: null, turn: null, trim: null, errors: [why] };
    if (!text && !input.parentMessageId) return skip;
    const regenerated = parent?.role === "user";
    if (!text && !regenerated) return skip;
    const idleMs = state.session.lastActiveAt ? now.getTime() - Date.parse(state.session.lastActiveAt) : 0;
    const expired = idleMs > deps.limits.sessionTtlSeconds * 1000;
    const fresh = expired || state.messages.length === 0;
    // A checkpoint missing or behind the transcript (the session store was down) is caught up from it.
    const carried = expired || parent ? null : await carryOver(store, scope, state, deps);
    const seed = fresh && !carried ? await seedWindow(store, scope, now, deps.newId()) : null;

    // The window and node memories hold at most maxMessages each: twice that much thread is plenty.
    // The parent is in hand: the walk starts at its own parent, so no message is read twice.
    const thread = parent ? [...(await ancestorsOf(store, scope, parent, 2 * deps.limits.window.maxMessages)), parent].map(recordToMessage) : null;
    let human: BaseMessage;
    if (regenerated && thread) {
      human = thread[thread.length - 1] ?? recordToMessage(parent);
    } else {
      human = humanMessage(input, text, deps.newId(), parent?.id ?? carried?.lastMessageId ?? state.session.lastMessageId, now);
      // Written once: here, or by call_model while the model answers (see `userRowWriter`).
      if (input.remember !== false && userRowWriter(deps) === NODE.ingestPrompt) await saveTranscriptMessage(store, scope, messageToRecord(human, scope.sessionId), { factKeys: deps.limits.recall.graph.factKeys });
    }

    const replaceWindow = expired || thread !== null;
    const additions = [...(seed ? [seed] : []), ...(carried?.messages ?? []), ...(thread ?? []), ...(regenerated ? [] : [human])];
    const update: BaseMessage[] = replaceWindow ? [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...keepPinned(state.messages, seed), ...additions] : additions;
    const window = windowUpdate(state.messages, update, deps.limits.window);
    if (expired) log.info("session_window_rebuilt", { tenantId: scope.tenantId, sessionId: scope.sessionId, idleSeconds: Math.round(idleMs / 1000) });

    return {
      ...window,
      input,
      scope,
      usage: null,
      nodeMessages: thread ? restrictNodeMemory(state.nodeMessages, new Set(thread.map((m) => m.id ?? ""))) : expired ? clearNodeMemory(state.nodeMessages) : {},
      status: "OK",
      candidate: null,
      llmText: "",
      event: null,
      recalled: null,
      memoryText: null,
      memoryUse: null,
      session: {
        lastActiveAt: now.toISOString(),
        // The session's thread goes on from its last stored message: an incognito one is not stored.
        lastMessageId: input.remember !== false || regenerated ? (human.id ?? null) : (parent?.id ?? carried?.lastMessageId ?? state.session.lastMessageId),
        windowsRebuilt: state.session.windowsRebuilt + (expired ? 1 : 0),
      },
      turn: {
        id: deps.newId(),
        messageId: human.id ?? "",
        text: text || (parent?.text ?? ""),
        startedAt: now.toISOString(),
        regenerated,
        sessionExpired: expired,
        replyId: null,
        model: null,
      },
    };
  };
}

function humanMessage(input: TurnInput, text: string, fallbackId: string, parentId: string | null, now: Date): HumanMessage {
  const files = [...(input.files ?? []), ...(input.prompts ?? []).flatMap((p) => p.files ?? [])];
  const message = new HumanMessage({ id: input.messageId ?? fallbackId, content: text });
  return withMeta(message, { parentId, createdAt: now.toISOString(), ...(files.length > 0 ? { files } : {}) });
}

/** Up to `max - 1` messages of the thread above `record`, root first (so with it, at most `max`). */
async function ancestorsOf(store: BaseStore, scope: MemoryScope, record: TranscriptRecord, max: number): Promise<TranscriptRecord[]> {
  if (record.parentId === null || max <= 1) return [];
  const above = await walkThread(store, scope, record.parentId, { max: max - 1 });
  if (above.some((ancestor) => ancestor.id === record.id)) throw threadCycle(record.id);
  return above;
}

/** Pinned system messages survive a window rebuild, unless a fresh seed replaces them. */
function keepPinned(messages: readonly BaseMessage[], seed: BaseMessage | null): BaseMessage[] {
  return seed ? [] : messages.filter((m) => metaOf(m).pinned === true);
}

/** Node memory after a regeneration: only what belongs to the thread being continued. */
function restrictNodeMemory(memory: MemoryState["nodeMessages"], threadIds: ReadonlySet<string>) {
  const update: Record<string, BaseMessage[]> = {};
  for (const [node, messages] of Object.entries(memory)) {
    const kept = messages.filter((m) => threadIds.has(sourceIdOf(m.id ?? "")));
    update[node] = [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...kept];
  }
  return update;
}

function clearNodeMemory(memory: MemoryState["nodeMessages"]) {
  return Object.fromEntries(Object.keys(memory).map((node) => [node, [new RemoveMessage({ id: REMOVE_ALL_MESSAGES })]]));
}

/** Node-memory messages derived from a conversation message carry its id before a `#`. */
export function sourceIdOf(id: string): string {
  const hash = id.indexOf("#");
  return hash === -1 ? id : id.slice(0, hash);
}

/** Messages to add to the window from long-term memory, and the message the new one follows. */
export interface CarriedOver {
  messages: BaseMessage[];
  lastMessageId: string;
}

/**
 * The window of a session whose checkpoint is missing or behind its transcript, from long-term
 * memory (a checkpoint past its TTL is not this: ingest_prompt starts it over from its summary):
 * - no window (the session was imported, or its checkpoint is gone: a degraded run, one that
 *   expired): the seed of a new window (summary, facts) and the newest messages of the session's
 *   thread, unless its newest message is older than the TTL; either way the new message follows
 *   that newest one. Null for a session with no messages yet.
 * - a checkpoint behind the session's continuity mark (one written before an outage, come back; or
 *   one a process did not get to write after answering a turn, as it died): the messages written
 *   since it.
 * Null when the checkpoint is current. Reads the mark each turn, on whichever instance: the
 * process that wrote ahead of the checkpoint may have been another one.
 */
export async function carryOver(store: BaseStore, scope: MemoryScope, state: MemoryState, deps: GraphDeps): Promise<CarriedOver | null> {
  const now = deps.now();
  const max = deps.limits.window.maxMessages;
  if (state.messages.length === 0) {
    const leaf = await newestMessage(store, scope);
    if (!leaf) return null;
    const idle = now.getTime() - Date.parse(leaf.createdAt) > deps.limits.sessionTtlSeconds * 1000;
    const thread = idle ? [] : await walkThread(store, scope, leaf.id, { max });
    const seed = await seedWindow(store, scope, now, deps.newId());
    log.debug("session_window_carried", { sessionId: scope.sessionId, from: "transcript", messages: thread.length });
    return { messages: [...(seed ? [seed] : []), ...thread.map(recordToMessage)], lastMessageId: leaf.id };
  }
  const since = await messagesAhead(store, scope, state.session, 2 * max);
  if (!since) return null;
  log.info("session_window_caught_up", { sessionId: scope.sessionId, messages: since.length });
  return { messages: since.map(recordToMessage), lastMessageId: since[since.length - 1]?.id ?? "" };
}
