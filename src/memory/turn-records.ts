import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { namespaces } from "./namespaces.js";
import type { MemoryScope } from "./scope.js";

/**
 * Finished turns by idempotency key. A client that sends a `messageId` may send the same request
 * again (a retry after a timeout); the turn it already got is then read back from here instead of
 * being run, and stored, a second time. One record per key and session, deleted with the session.
 */
export interface TurnRecord<R = unknown> {
  /** The client's message id. */
  key: string;
  /** The prompt text the key was first sent with. */
  text: string;
  /** The parent message id the key was first sent with (null when none was given). */
  parentMessageId: string | null;
  /** What the caller got back. */
  result: R;
  createdAt: string;
}

/** The record of the turn first sent with `key` in this session, or null. */
export async function getTurnRecord<R>(store: BaseStore, scope: MemoryScope, key: string): Promise<TurnRecord<R> | null> {
  const item = await store.get(namespaces.turns(scope), key);
  return item ? (item.value as TurnRecord<R>) : null;
}

/** Keeps the record of a finished turn (an upsert: the key's first finished result is the one kept by callers). */
export async function saveTurnRecord<R>(store: BaseStore, scope: MemoryScope, record: TurnRecord<R>): Promise<void> {
  await store.put(namespaces.turns(scope), record.key, { ...record }, false);
}

/** True when a request repeats the one the record was made for: same text, same parent. */
export function sameRequest(record: Pick<TurnRecord, "text" | "parentMessageId">, text: string, parentMessageId: string | undefined): boolean {
  return record.text === text && record.parentMessageId === (parentMessageId ?? null);
}
