import type { BaseMessage } from "@langchain/core/messages";
import type { BaseStore, LangGraphRunnableConfig } from "@langchain/langgraph";
import { log } from "../../logger.js";
import type { MemoryScope } from "../../memory/scope.js";
import { seedWindow } from "../../memory/session-seed.js";
import { messagesSince, readDegradedMark } from "../../memory/session-continuity.js";
import { newestMessage, recordToMessage, walkThread } from "../../memory/transcript.js";
import type { MemoryState } from "../state/state.js";
import type { GraphDeps } from "./deps.js";

/**
 * What a run's config says about its session store (set by the facade): `sessionStoreUpSince` —
 * since when (epoch ms) the session store answered without a break in this process.
 */
interface ContinuityConfig {
  sessionStoreUpSince?: number;
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
 * - a checkpoint older than the session's degraded mark (one written before an outage, come back):
 *   the messages written since it.
 * Null when the checkpoint is current. Reads the mark only when the checkpoint may be behind: one
 * last written before the session store's latest unbroken run in this process.
 */
export async function carryOver(store: BaseStore, scope: MemoryScope, state: MemoryState, config: LangGraphRunnableConfig, deps: GraphDeps): Promise<CarriedOver | null> {
  const settings = (config.configurable ?? {}) as ContinuityConfig;
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
  const lastActive = state.session.lastActiveAt ? Date.parse(state.session.lastActiveAt) : 0;
  if (settings.sessionStoreUpSince === undefined || lastActive >= settings.sessionStoreUpSince) return null;
  const mark = await readDegradedMark(store, scope);
  if (!mark || Date.parse(mark.at) <= lastActive || mark.throughId === state.session.lastMessageId) return null;
  const since = await messagesSince(store, scope, mark.throughId, state.session.lastMessageId, 2 * max);
  if (since.length === 0) return null;
  log.info("session_window_caught_up", { sessionId: scope.sessionId, messages: since.length });
  return { messages: since.map(recordToMessage), lastMessageId: mark.throughId };
}
