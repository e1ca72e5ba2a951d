import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { namespaces } from "./namespaces.js";
import type { TranscriptRecord } from "./records.js";
import type { MemoryScope } from "./scope.js";
import { newestMessage, walkThread } from "./transcript.js";

/**
 * Session continuity across a session-store outage. A turn that ran without its checkpoint (the
 * session store did not answer) leaves a mark in long-term memory naming the newest message it
 * wrote; the session's next turn that finds its checkpoint older than the mark (a stale one that
 * came back, or none at all) takes the messages after its checkpoint from the transcript, so no
 * turn answered during the outage is missing from the window.
 */

/** The newest message written by turns that ran without the session store, and when. */
export interface DegradedMark {
  throughId: string;
  at: string;
}

/** Kept beside the session's idempotency records; a message id cannot contain "/", so no record has this key. */
const MARK_KEY = "continuity/degraded";

/** Records that turns of `scope` up to `throughId` ran without the session store (an upsert: the newest mark wins). */
export async function markDegraded(store: BaseStore, scope: MemoryScope, mark: DegradedMark): Promise<void> {
  await store.put(namespaces.turns(scope), MARK_KEY, { ...mark }, false);
}

/** The session's degraded mark, or null when no turn of it ever ran without the session store. */
export async function readDegradedMark(store: BaseStore, scope: MemoryScope): Promise<DegradedMark | null> {
  const item = await store.get(namespaces.turns(scope), MARK_KEY);
  return item ? (item.value as DegradedMark) : null;
}

/** The messages after `sinceId` on the thread ending at `throughId`, oldest first (at most `max`). Only reads. */
export async function messagesSince(store: BaseStore, scope: MemoryScope, throughId: string, sinceId: string | null, max: number): Promise<TranscriptRecord[]> {
  return walkThread(store, scope, throughId, { max, stopAfterId: sinceId });
}

/**
 * The newest message of a session's current thread: the checkpoint's, unless turns that ran
 * without the session store wrote after it (or there is no checkpoint), then the mark's. With
 * neither (no turn ran here: the session was imported, or its checkpoint is gone), the newest
 * message its transcript holds. Null for a session with no messages. Only reads.
 */
export async function currentLeaf(
  store: BaseStore,
  scope: MemoryScope,
  checkpoint: { lastMessageId: string | null; lastActiveAt: string | null } | null,
): Promise<string | null> {
  const mark = await readDegradedMark(store, scope);
  const checkpointAt = checkpoint?.lastActiveAt ? Date.parse(checkpoint.lastActiveAt) : 0;
  if (mark && (!checkpoint?.lastMessageId || Date.parse(mark.at) > checkpointAt)) return mark.throughId;
  return checkpoint?.lastMessageId ?? (await newestMessage(store, scope))?.id ?? null;
}
