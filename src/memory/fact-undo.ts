import type { BaseStore, Operation, PutOperation } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../errors.js";
import { loadFacts } from "./facts.js";
import { findFact, historyOf } from "./fact-edits.js";
import { namespaces } from "./namespaces.js";
import type { FactRecord } from "./records.js";
import type { UserScope } from "./scope.js";
import { listAll, supportsOf } from "./store-io.js";

/**
 * Undo for a person's fact changes, for a short while. An edit is undone by restoring the version
 * it replaced (`planRestore`): that version is current again and the edit's version goes. A delete
 * is soft for `UNDO_WINDOW_MS`: it takes effect at once everywhere the model reads (the fact and
 * every copy of its value, as `deleteFact` cuts them), and beside it an undo record keeps what was
 * deleted and the items as they were before the cut, under the user's `factUndo` namespace, which
 * nothing the model reads, searches or exports. Within the window `restoreDeleted` puts them back;
 * after it the record is gone: invisible at once (the store's TTL, where it has one) and deleted by
 * the next delete or restore of the user and by the store's TTL sweep (`npm run gc`). Restoring does
 * not reach the session windows `deleteFact` redacted: those keep `[removed]`.
 */

/** How long a deleted fact can be brought back. */
export const UNDO_WINDOW_MS = 60_000;

/** What an undo record keeps: the fact versions deleted, and each redacted item as it was. */
interface UndoRecord {
  factId: string;
  until: string;
  facts: FactRecord[];
  items: { namespace: string[]; key: string; value: Record<string, unknown>; index?: false }[];
}

/**
 * The write of the undo record of deleting `deleted` (the version `factId` named, and the others of
 * its key) with `writes` (the redaction's puts). Reads each redacted item as it is now, before the
 * caller's batch cuts it.
 */
export async function undoRecordWrite(store: BaseStore, user: UserScope, factId: string, deleted: readonly FactRecord[], writes: readonly Operation[], now: Date): Promise<PutOperation> {
  const puts = writes.filter((op): op is PutOperation => "value" in op && op.value !== null);
  const before = await store.batch(puts.map((op) => ({ namespace: op.namespace, key: op.key })));
  const items = puts.flatMap((op, i) => {
    const item = before[i];
    return item ? [{ namespace: op.namespace, key: op.key, value: item.value, ...(op.index === false ? { index: false as const } : {}) }] : [];
  });
  const record: UndoRecord = { factId, until: new Date(now.getTime() + UNDO_WINDOW_MS).toISOString(), facts: [...deleted], items };
  // Minutes, rounded up: the store hides it after the window (the record's own `until` decides to the millisecond).
  const ttl = supportsOf(store).ttl ? { ttl: Math.ceil(UNDO_WINDOW_MS / 60_000) } : {};
  return { namespace: namespaces.factUndo(user), key: factId, value: { ...record }, index: false, ...ttl };
}

/** Deletes the user's undo records whose window has passed; returns how many. */
export async function sweepUndo(store: BaseStore, user: UserScope, now: Date): Promise<number> {
  const records = await listAll(store, namespaces.factUndo(user), { cap: Number.MAX_SAFE_INTEGER });
  const expired = records.filter((item) => (item.value as unknown as UndoRecord).until <= now.toISOString());
  if (expired.length > 0) await store.batch(expired.map((item) => ({ namespace: item.namespace, key: item.key, value: null })));
  return expired.length;
}

/**
 * Brings back the fact deleted as `factId` and the items its delete cut, when that delete is
 * within its window; null when there is no such delete (never made, undone already, or too late).
 * An item deleted since is left deleted. One batch, which also drops the undo record.
 */
export async function restoreDeleted(store: BaseStore, user: UserScope, factId: string, now: Date): Promise<FactRecord | null> {
  await sweepUndo(store, user, now);
  const item = await store.get(namespaces.factUndo(user), factId);
  const record = item?.value as unknown as UndoRecord | undefined;
  if (!record || record.until <= now.toISOString()) return null;
  const still = await store.batch(record.items.map(({ namespace, key }) => ({ namespace, key })));
  const items = record.items.filter((_, i) => still[i] !== null);
  await store.batch([
    ...record.facts.map((fact): Operation => ({ namespace: namespaces.facts(user), key: fact.id, value: { ...fact }, index: false })),
    ...items.map(({ namespace, key, value, index }): Operation => ({ namespace, key, value, ...(index === false ? { index } : {}) })),
    { namespace: namespaces.factUndo(user), key: factId, value: null },
  ]);
  return record.facts.find((fact) => fact.validTo === null) ?? record.facts.find((fact) => fact.id === factId) ?? null;
}

/**
 * Pure: what to write to make the superseded version `id` current again, undoing the version that
 * replaced it (which must be the current one: FACT_STALE otherwise, as after a later change).
 * The replacing version is deleted; `id` reopens (validTo null). FACT_NOT_FOUND when there is no `id`.
 */
export function planRestore(facts: readonly FactRecord[], id: string): { fact: FactRecord; writes: { put: FactRecord; remove: FactRecord } } {
  const target = findFact(facts, id);
  const history = historyOf(facts, target);
  const version = history.find((v) => v.id === id);
  const next = facts.find((fact) => fact.id === version?.supersededBy);
  if (target.validTo === null || !next || next.validTo !== null) {
    const why = target.validTo === null ? "it is the current version" : "the version that replaced it has itself been replaced";
    throw new MemoryGraphError("FACT_STALE", `fact ${id} cannot be restored: ${why}`, { kind: "user", field: "factId" });
  }
  const fact: FactRecord = { ...target, validTo: null };
  return { fact, writes: { put: fact, remove: next } };
}

/** Restores the superseded version `id` as current (see `planRestore`), in one batch; returns it. */
export async function restoreVersion(store: BaseStore, user: UserScope, id: string): Promise<FactRecord> {
  const { fact, writes } = planRestore(await loadFacts(store, user), id);
  await store.batch([
    { namespace: namespaces.facts(user), key: writes.remove.id, value: null },
    { namespace: namespaces.facts(user), key: fact.id, value: { ...fact }, index: false },
  ]);
  return fact;
}
