import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { z } from "zod";
import { log } from "../logger.js";
import { namespaces } from "./namespaces.js";
import type { MemoryContext } from "./recall.js";
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

const amount = z.number().min(0);
const list = z.array(z.looseObject({}));

/**
 * A turn's result as a turn record keeps it: the `TurnResult` of src/graph/nodes/build-candidate.ts,
 * field for field (the type there is checked against this schema's output at compile time), with
 * the fields added since the first release optional, as records written before them lack them.
 * What a replay reads is checked (the reply, usage, trim, errors, ids); recall's lists are checked
 * as lists of records, since nothing is made from them again. Unknown keys are dropped.
 * Imports hold an imported record's result to it, and a replay reads a stored one through it.
 */
export const turnResultSchema = z.object({
  status: z.enum(["OK", "SKIP", "ERROR"]),
  candidate: z.object({ id: z.string(), kind: z.literal("text"), status: z.literal("proposed"), text: z.string(), model: z.string(), createdAt: z.string() }).nullable(),
  llmText: z.string(),
  memoryContext: z.object({
    recalled: z
      .looseObject({ recentTurns: list, summaries: list, facts: list, events: list, similar: list, searchedScope: z.enum(["session", "user"]) })
      .transform((recalled) => recalled as unknown as MemoryContext)
      .nullable(),
    text: z.string(),
    tokens: amount,
  }),
  trim: z.object({ beforeCount: amount, afterCount: amount, trimmedByChars: amount, trimmedByCount: amount, trimmedByTokens: amount }).nullable(),
  messageIds: z.object({ user: z.string().nullable(), assistant: z.string().nullable() }),
  event: z
    .object({
      type: z.string(),
      importance: z.number(),
      intent: z.string(),
      entities: z.array(z.object({ type: z.string(), value: z.string() })),
      language: z.string(),
      payload: z.record(z.string(), z.unknown()),
      text: z.string(),
      classifiedBy: z.enum(["model", "keywords"]),
      classifyPolicy: z.enum(["model", "rules", "auto"]).optional(),
      classifyReason: z.string().optional(),
      attributeUpdates: z.array(z.object({ key: z.string(), value: z.string() })),
      saved: z.boolean(),
      fallbackReason: z.string().nullable(),
    })
    .nullable(),
  intent: z.string().nullable().optional(),
  needMemory: z.boolean().optional(),
  memoryReason: z.string().optional(),
  errors: z.array(z.object({ node: z.string(), code: z.string(), message: z.string(), turnId: z.string().optional() })),
  usage: z.object({
    inputTokens: amount,
    outputTokens: amount,
    totalTokens: amount,
    calls: z.array(z.object({ node: z.string(), inputTokens: amount, outputTokens: amount })),
  }),
  replayed: z.boolean(),
  degraded: z.array(z.enum(["session_store", "memory_store"])).optional(),
});

/** A turn's result as stored: a `TurnResult`, perhaps without the fields added since the first release. */
export type StoredTurnResult = z.output<typeof turnResultSchema>;

/**
 * The record of the turn first sent with `key` in this session, or null. A record whose result
 * does not read as a turn result (written by hand, or imported before imports checked it) comes
 * with `result: null`: the caller answers as for a turn whose result was never recorded (a turn
 * that runs for the key again writes over it). A record without its text or parent reads as
 * none. Either is logged (the session and key, and the first field at fault; never the text).
 */
export async function getTurnRecord(store: BaseStore, scope: MemoryScope, key: string): Promise<TurnRecord<StoredTurnResult | null> | null> {
  const item = await store.get(namespaces.turns(scope), key);
  if (!item) return null;
  const record = item.value as Partial<TurnRecord>;
  const at = { tenant: scope.tenantId, session_id: scope.sessionId, message_id: key };
  const parentMessageId = record.parentMessageId ?? null;
  if (typeof record.text !== "string" || (parentMessageId !== null && typeof parentMessageId !== "string")) {
    log.error("turn.record_unreadable", { ...at, field: typeof record.text !== "string" ? "text" : "parentMessageId" });
    return null;
  }
  const parsed = turnResultSchema.safeParse(record.result);
  if (!parsed.success) log.error("turn.record_unreadable", { ...at, field: ["result", ...(parsed.error.issues[0]?.path ?? [])].join(".") });
  return { key, text: record.text, parentMessageId, result: parsed.success ? parsed.data : null, createdAt: String(record.createdAt ?? "") };
}

/** Keeps the record of a finished turn (an upsert: the key's first finished result is the one kept by callers). */
export async function saveTurnRecord<R>(store: BaseStore, scope: MemoryScope, record: TurnRecord<R>): Promise<void> {
  await store.put(namespaces.turns(scope), record.key, { ...record }, false);
}

/** True when a request repeats the one the record was made for: same text, same parent. */
export function sameRequest(record: Pick<TurnRecord, "text" | "parentMessageId">, text: string, parentMessageId: string | undefined): boolean {
  return record.text === text && record.parentMessageId === (parentMessageId ?? null);
}
