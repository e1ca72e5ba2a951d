import type { BaseStore, PutOperation } from "@langchain/langgraph-checkpoint";
import { namespaces } from "./namespaces.js";
import type { FactRecord } from "./records.js";
import type { MemoryScope } from "./scope.js";
import { listAll, newestFirst, valuesOf } from "./store-io.js";

/**
 * The attributes-and-facts layer. A fact is a key with a value and a validity interval; a new
 * value for a key supersedes the current record, which stays with `validTo` set.
 */

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

export interface FactUpdate {
  key: string;
  value: string;
  /** When the fact stops being true by itself (ISO 8601); absent: until it changes. */
  expiresAt?: string;
}

/** Normalises an attribute key: lower case, words joined by `_`, dots kept for groups. */
export function normalizeFactKey(key: string): string {
  return key.trim().toLowerCase().replace(/[^\p{L}\p{N}.]+/gu, "_").replace(/^_+|_+$/g, "");
}

/** How a fact reads in memory: "phone: 555-0100", "location city: Chiang Mai", "likes: jazz". */
export function factText(key: string, value: string): string {
  const label = /^(likes|dislikes)\./.test(key) ? key.split(".")[0] ?? key : key.replace(/[._]/g, " ");
  return `${label}: ${value}`;
}

/**
 * Pure: what to write so that `updates` become the current facts. An unchanged value writes
 * nothing; a changed value closes the current record (validTo = now) and opens a new one. A
 * pinned current record is never superseded here (only an explicit edit changes it).
 * Inputs are not mutated.
 */
export function upsertFacts(
  current: readonly FactRecord[],
  updates: readonly FactUpdate[],
  source: { messageId: string; sessionId: string; now: string },
): FactRecord[] {
  const writes = new Map<string, FactRecord>();
  const open = new Map<string, FactRecord>();
  for (const fact of current) if (fact.validTo === null) open.set(fact.key, fact);
  for (const update of updates) {
    const key = normalizeFactKey(update.key);
    const value = update.value.trim();
    if (!key || !value) continue;
    const existing = open.get(key);
    if (existing && ((existing.value === value && existing.expiresAt === update.expiresAt) || existing.pinned)) continue;
    if (existing) writes.set(existing.id, { ...existing, validTo: source.now });
    const fact: FactRecord = {
      id: `${key}@${source.messageId}`,
      key,
      value,
      text: factText(key, value),
      validFrom: source.now,
      validTo: null,
      ...(update.expiresAt ? { expiresAt: update.expiresAt } : {}),
      sourceMessageIds: [source.messageId],
      sessionId: source.sessionId,
    };
    writes.set(fact.id, fact);
    open.set(key, fact);
  }
  return [...writes.values()];
}

/** Every fact record of a user, current and superseded, newest first. */
export async function loadFacts(store: BaseStore, scope: UserScope): Promise<FactRecord[]> {
  return newestFirst(valuesOf<FactRecord>(await listAll(store, namespaces.facts(scope))), (f) => f.validFrom);
}

/**
 * The facts that are true at `now` (default: any time): each key's open record (validTo null),
 * unless it has expired; a key whose open record expired falls back to the record that one
 * superseded (closed when it began), if that has not expired too. Pinned ones first, then the
 * rest, newest first; one per key (the first met), so that two writers racing on one key never
 * show the model both values. Pure.
 */
export function currentFacts(facts: readonly FactRecord[], now?: Date): FactRecord[] {
  const at = now?.toISOString();
  const live = (fact: FactRecord) => at === undefined || fact.expiresAt === undefined || fact.expiresAt > at;
  const current: FactRecord[] = [];
  for (const open of facts.filter((fact) => fact.validTo === null)) {
    let fact: FactRecord | undefined = open;
    const seen = new Set<string>();
    while (fact && !live(fact) && !seen.has(fact.id)) {
      seen.add(fact.id);
      const closedBy: FactRecord = fact;
      fact = facts.find((other) => other.key === closedBy.key && other.validTo === closedBy.validFrom && other.id !== closedBy.id);
    }
    if (fact && live(fact)) current.push(fact);
  }
  const newest = newestFirst(current, (f) => f.validFrom);
  const ordered = [...newest.filter((fact) => fact.pinned), ...newest.filter((fact) => !fact.pinned)];
  const keys = new Set<string>();
  return ordered.filter((fact) => !keys.has(fact.key) && keys.add(fact.key));
}

/**
 * Applies attribute updates to the store, in one batch (a superseded record is closed in the
 * transaction that opens its successor); returns the records written.
 */
export async function saveFacts(
  store: BaseStore,
  scope: UserScope,
  updates: readonly FactUpdate[],
  source: { messageId: string; sessionId: string; now: string },
): Promise<FactRecord[]> {
  if (updates.length === 0) return [];
  const writes = upsertFacts(await loadFacts(store, scope), updates, source);
  if (writes.length > 0) await store.batch(writes.map((fact) => factPut(scope, fact)));
  return writes;
}

/** The write of one fact record, for a caller that batches writes. */
export function factPut(scope: UserScope, fact: FactRecord): PutOperation {
  // Unindexed: facts are read whole, never searched by text (no full-text row, no vector).
  return { namespace: namespaces.facts(scope), key: fact.id, value: { ...fact }, index: false };
}

/**
 * Pure: the records to rewrite when the records whose ids are in `removed` are forgotten, as if
 * they had never been learned. A surviving record that a removed one closed (same key, closed
 * when the removed one began) is true again until the next surviving record of its key begins,
 * or current (`validTo: null`) when none follows. Nothing else changes; inputs are not mutated.
 */
export function restoreSuperseded(facts: readonly FactRecord[], removed: ReadonlySet<string>): FactRecord[] {
  const removedStarts = new Set(facts.filter((fact) => removed.has(fact.id)).map((fact) => `${fact.key}\n${fact.validFrom}`));
  const survivors = facts.filter((fact) => !removed.has(fact.id));
  const rewrites: FactRecord[] = [];
  for (const fact of survivors) {
    if (fact.validTo === null || !removedStarts.has(`${fact.key}\n${fact.validTo}`)) continue;
    const closedAt = fact.validTo;
    const next = survivors
      .filter((other) => other.key === fact.key && other.id !== fact.id && other.validFrom >= closedAt)
      .reduce<FactRecord | undefined>((first, other) => (first === undefined || other.validFrom < first.validFrom ? other : first), undefined);
    const validTo = next?.validFrom ?? null;
    if (validTo !== fact.validTo) rewrites.push({ ...fact, validTo });
  }
  return rewrites;
}
