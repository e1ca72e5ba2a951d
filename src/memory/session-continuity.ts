import type { BaseStore, PutOperation } from "@langchain/langgraph-checkpoint";
import { embedLater, vectorCanWait, type LateWrites } from "./late-writes.js";
import { namespaces } from "./namespaces.js";
import type { DeferredVectorPut } from "./ports/store.js";
import type { TranscriptRecord } from "./records.js";
import type { MemoryScope } from "./scope.js";
import { warmSearch } from "./store-io.js";
import { getTranscriptMessage, newestMessage, walkThread } from "./transcript.js";
import type { TurnContextRecord } from "./turn-contexts.js";

/**
 * Session continuity when a session's messages get ahead of its checkpoint. Two kinds of turn write
 * messages its checkpoint does not hold yet, and leave a mark in long-term memory naming the newest
 * of them:
 * - a turn that ran without its checkpoint (the session store did not answer);
 * - a turn whose result goes out with its reply (`saveAnswer`), before its checkpoint is written
 *   (while the classification still runs): a process that dies in between leaves the checkpoint
 *   one turn behind a turn it answered.
 * The session's next turn that finds its checkpoint behind the mark takes the messages after its
 * checkpoint from the transcript, so no answered turn is missing from the thread.
 */

/** The newest message written ahead of the session's checkpoint, and when. */
export interface ContinuityMark {
  throughId: string;
  at: string;
  /**
   * "answer": written with a turn's reply, before its checkpoint; that turn went on from the
   * checkpoint's last message, so the mark is ahead of a checkpoint whose thread its message
   * continues. Absent: written by turns that ran without the session store; ahead of a checkpoint
   * written before it.
   */
  by?: "answer";
}

/**
 * Kept beside the session's idempotency records; a message id cannot contain "/", so no record has
 * this key. (Named when only outages left marks; kept, so that marks stored before stay readable.)
 */
const MARK_KEY = "continuity/degraded";

/** Records that the messages of `scope` up to `throughId` were written ahead of its checkpoint (an upsert: the newest mark wins). */
export async function markAhead(store: BaseStore, scope: MemoryScope, mark: ContinuityMark): Promise<void> {
  await store.batch([markWrite(scope, mark)]);
}

/** The write of the session's mark (unindexed), alone (`markAhead`) or in a batch with others (`saveAnswer`). */
function markWrite(scope: MemoryScope, mark: ContinuityMark): PutOperation {
  return { namespace: namespaces.turns(scope), key: MARK_KEY, value: { ...mark }, index: false };
}

/** The session's mark, or null when none of its turns ever wrote ahead of its checkpoint. */
export async function readMark(store: BaseStore, scope: MemoryScope): Promise<ContinuityMark | null> {
  const item = await store.get(namespaces.turns(scope), MARK_KEY);
  return item ? (item.value as ContinuityMark) : null;
}

/**
 * A turn's answer, stored in one write: its reply and what its memory context showed
 * (`TurnContextRecord`); with `markAnswer` (the turn's result goes out with the reply, before its
 * checkpoint is written), the session's continuity mark naming the reply too, so that a process
 * that dies before that checkpoint leaves the answered turn on the thread. (A turn answered at its
 * end is not marked: one refused after its reply was stored stays off the thread.) With `later`
 * (the caller awaits its late writes before it lets go of the turn) and a store that can
 * (`vectorCanWait`), the reply is indexed for text in that write and its vector is computed and
 * written after it, on `later`, off the answer's path (`embedLater`); otherwise in the same write.
 */
export async function saveAnswer(
  store: BaseStore,
  scope: MemoryScope,
  reply: TranscriptRecord,
  context: TurnContextRecord,
  options: { markAnswer: boolean; later?: LateWrites },
): Promise<void> {
  const indexed = reply.recall !== false;
  const later = indexed && vectorCanWait(store, options.later) ? options.later : undefined;
  const put: DeferredVectorPut = { namespace: namespaces.transcript(scope), key: reply.id, value: { ...reply }, ...(indexed ? {} : { index: false as const }), ...(later ? { deferVector: true } : {}) };
  await store.batch([
    put,
    { namespace: namespaces.turnContexts(scope), key: context.messageId, value: { ...context }, index: false },
    ...(options.markAnswer ? [markWrite(scope, { throughId: reply.id, at: reply.createdAt, by: "answer" })] : []),
  ]);
  if (later) embedLater(store, later, put.namespace, reply.id);
  // Cross-session recall searches all of the user's sessions: keep that index warm from the write on.
  if (indexed) await warmSearch(store, namespaces.sessions(scope));
}

/**
 * The stored reply to user message `messageId` that the session's mark names: a turn answered
 * before its checkpoint, whose process died before its result was recorded. Null when the mark is
 * another turn's (or none). Only reads.
 */
export async function answeredReplyTo(store: BaseStore, scope: MemoryScope, messageId: string): Promise<TranscriptRecord | null> {
  const mark = await readMark(store, scope);
  if (mark?.by !== "answer") return null;
  const reply = await getTranscriptMessage(store, scope, mark.throughId);
  return reply?.role === "assistant" && reply.parentId === messageId ? reply : null;
}

type CheckpointEnd = { lastMessageId: string | null; lastActiveAt: string | null } | null;

/**
 * The messages of the session written ahead of its checkpoint (its thread's last message, and
 * when it was last active), oldest first and at most `max`; null when the checkpoint holds them
 * all. An answered turn's mark counts only when its message continues the checkpoint's thread
 * within `max` messages: a deleted message, or one on another branch, leaves the thread where the
 * checkpoint says. Only reads.
 */
export async function messagesAhead(store: BaseStore, scope: MemoryScope, checkpoint: CheckpointEnd, max: number): Promise<TranscriptRecord[] | null> {
  const mark = await readMark(store, scope);
  const lastId = checkpoint?.lastMessageId ?? null;
  if (!mark || mark.throughId === lastId) return null;
  if (mark.by !== "answer" && lastId && Date.parse(mark.at) <= (checkpoint?.lastActiveAt ? Date.parse(checkpoint.lastActiveAt) : 0)) return null;
  const since = await walkThread(store, scope, mark.throughId, { max, stopAfterId: lastId });
  if (since.length === 0) return null;
  return mark.by !== "answer" || since[0]?.parentId === lastId ? since : null;
}

/**
 * The newest message of a session's current thread: the checkpoint's, unless turns wrote ahead of
 * it (`messagesAhead`), then the newest of those. With neither (no turn ran here: the session was
 * imported, or its checkpoint is gone), the newest message its transcript holds. Null for a
 * session with no messages. Only reads.
 */
export async function currentLeaf(store: BaseStore, scope: MemoryScope, checkpoint: CheckpointEnd, max: number): Promise<string | null> {
  const ahead = await messagesAhead(store, scope, checkpoint, max);
  return ahead?.at(-1)?.id ?? checkpoint?.lastMessageId ?? (await newestMessage(store, scope))?.id ?? null;
}
