import type { BaseMessage } from "@langchain/core/messages";
import type { BaseStore, LangGraphRunnableConfig } from "@langchain/langgraph";
import { log } from "../logger.js";
import type { MemoryScope } from "../memory/scope.js";
import { seedWindow } from "../memory/session-seed.js";
import { messagesSince, readDegradedMark, recentThread } from "../memory/session-continuity.js";
import { recordToMessage } from "../memory/transcript.js";
import type { MemoryState } from "../state/state.js";
import type { GraphDeps } from "./deps.js";

/**
 * What a run's config says about its session store (set by the facade): `degradedSession` — the
 * session store is down and this run started from no checkpoint; `sessionStoreUpSince` — since
 * when (epoch ms) the session store answered without a break in this process.
 */
interface ContinuityConfig {
  degradedSession?: boolean;
  sessionStoreUpSince?: number;
}

/** Messages to add to the window from long-term memory, and the message the new one follows. */
export interface CarriedOver {
  messages: BaseMessage[];
  lastMessageId: string;
}

/**
 * The window of a session whose checkpoint is missing or behind its transcript, from long-term
 * memory (a session past its TTL is not this: it starts over from its summary):
 * - no checkpoint, on a degraded run or after turns that ran degraded: the seed of a new window
 *   (summary, facts) and the newest messages of the session's thread;
 * - a checkpoint older than the session's degraded mark (one written before an outage, come back):
 *   the messages written since it.
 * Null when the checkpoint is current. Reads the mark only when the checkpoint may be behind: no
 * checkpoint, or one last written before the session store's latest unbroken run in this process.
 */
export async function carryOver(store: BaseStore, scope: MemoryScope, state: MemoryState, config: LangGraphRunnableConfig, deps: GraphDeps): Promise<CarriedOver | null> {
  const settings = (config.configurable ?? {}) as ContinuityConfig;
  const now = deps.now();
  const ttlMs = deps.limits.sessionTtlSeconds * 1000;
  const max = deps.limits.window.maxMessages;
  if (state.messages.length === 0) {
    if (!settings.degradedSession) {
      const mark = await readDegradedMark(store, scope);
      if (!mark || now.getTime() - Date.parse(mark.at) > ttlMs) return null;
    }
    const thread = await recentThread(store, scope, max);
    const leaf = thread.at(-1);
    if (!leaf || now.getTime() - Date.parse(leaf.createdAt) > ttlMs) return null;
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
