import type { BaseStore, Operation } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../errors.js";
import { factText, loadFacts } from "./facts.js";
import { namespaces } from "./namespaces.js";
import type { FactRecord } from "./records.js";
import { redactionWrites } from "./redaction.js";
import type { MemoryScope } from "./scope.js";

/**
 * Facts as a person corrects them: one fact's history, an edit (a new version, `source: "edit"`),
 * a pin, and a delete. Every change is checked against the version the caller saw: an edit of a
 * version that is no longer current is FACT_STALE (HTTP 409), unless the current version already
 * says what the edit asks (a retried edit), which is then answered as it is.
 */

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/** One version of a fact, with the version that superseded it (null while current, or when none did). */
export interface FactVersion extends FactRecord {
  supersededBy: string | null;
}

/** What an edit asks: a new value, a pin or an unpin, an expiry (a UTC ISO time, or null for none); any of them. */
export interface FactChange {
  value?: string;
  pinned?: boolean;
  expiresAt?: string | null;
}

/** Pure: every version of `fact`'s key, oldest first, each with the version that began when it ended. */
export function historyOf(facts: readonly FactRecord[], fact: FactRecord): FactVersion[] {
  const versions = facts.filter((other) => other.key === fact.key).sort((a, b) => a.validFrom.localeCompare(b.validFrom) || a.id.localeCompare(b.id));
  return versions.map((version) => {
    const next = version.validTo === null ? undefined : versions.find((other) => other.id !== version.id && other.validFrom === version.validTo);
    return { ...version, supersededBy: next?.id ?? null };
  });
}

function notFound(id: string): MemoryGraphError {
  return new MemoryGraphError("FACT_NOT_FOUND", `no fact ${id} for this user`, { kind: "user", field: "factId" });
}

/** The fact `id` among `facts`; FACT_NOT_FOUND when there is none. */
export function findFact(facts: readonly FactRecord[], id: string): FactRecord {
  const fact = facts.find((candidate) => candidate.id === id);
  if (!fact) throw notFound(id);
  return fact;
}

function satisfies(fact: FactRecord, value: string | undefined, change: FactChange): boolean {
  return (
    (value === undefined || fact.value === value) &&
    (change.pinned === undefined || Boolean(fact.pinned) === change.pinned) &&
    (change.expiresAt === undefined || (fact.expiresAt ?? null) === change.expiresAt)
  );
}

/** `fact` pinned or not, and expiring at `expiresAt` (null: never). */
function withPinAndExpiry(fact: FactRecord, pinned: boolean, expiresAt: string | null): FactRecord {
  const { pinned: _, expiresAt: __, ...rest } = fact;
  return { ...rest, ...(pinned ? { pinned: true as const } : {}), ...(expiresAt === null ? {} : { expiresAt }) };
}

/**
 * Pure: what to write so that the current version `id` reads as `change` asks. A new value closes
 * the version (validTo = now) and opens one with `source: "edit"` (keeping the pin unless the change
 * sets it; expiring only when the change says when); a pin or an expiry alone rewrites the version
 * in place. An expiry (`currentFacts`) takes the fact out of the prompt once passed. Returns the resulting current version and the
 * writes (none when it already reads so). FACT_NOT_FOUND, FACT_STALE or INVALID_INPUT otherwise.
 */
export function planFactEdit(
  facts: readonly FactRecord[],
  id: string,
  change: FactChange,
  edit: { now: string; editId: string },
): { fact: FactRecord; writes: FactRecord[] } {
  const value = change.value?.trim();
  if (value === "") throw new MemoryGraphError("INVALID_INPUT", "value: must not be empty", { kind: "user", field: "value" });
  const target = findFact(facts, id);
  if (target.validTo !== null) {
    const current = facts.find((fact) => fact.key === target.key && fact.validTo === null);
    // A retry of an edit that took effect finds its own result current: answered, nothing written.
    if (current && satisfies(current, value, change) && current.source === "edit") return { fact: current, writes: [] };
    const by = current ? `; the current version is ${current.id}` : "";
    throw new MemoryGraphError("FACT_STALE", `fact ${id} was superseded${by}: read it again and edit the current version`, { kind: "user", field: "factId" });
  }
  if (satisfies(target, value, change)) return { fact: target, writes: [] };
  const pinned = change.pinned ?? Boolean(target.pinned);
  if (value === undefined || value === target.value) {
    const fact = withPinAndExpiry(target, pinned, change.expiresAt === undefined ? (target.expiresAt ?? null) : change.expiresAt);
    return { fact, writes: [fact] };
  }
  const fact = withPinAndExpiry(
    {
      id: `${target.key}@edit-${edit.editId}`,
      key: target.key,
      value,
      text: factText(target.key, value),
      validFrom: edit.now,
      validTo: null,
      sourceMessageIds: [],
      sessionId: target.sessionId,
      source: "edit",
    },
    pinned,
    change.expiresAt ?? null,
  );
  return { fact, writes: [{ ...target, validTo: edit.now }, fact] };
}

/** Applies `change` to the current fact `id` (see `planFactEdit`); returns the current version. Facts are stored unindexed: nothing to re-index. */
export async function editFact(store: BaseStore, scope: UserScope, id: string, change: FactChange, edit: { now: string; editId: string }): Promise<FactRecord> {
  const facts = await loadFacts(store, scope);
  const { fact, writes } = planFactEdit(facts, id, change, edit);
  if (writes.length > 0) {
    await store.batch(writes.map((record): Operation => ({ namespace: namespaces.facts(scope), key: record.id, value: { ...record }, index: false })));
  }
  return fact;
}

/** Which versions a delete takes: the one named, or every version of its key. */
export type FactVersions = "one" | "all";

/** What deleting a fact did: versions deleted, summaries marked stale, messages and other records redacted. */
export interface FactDeletion {
  facts: number;
  staleSummaries: number;
  redactedMessages: number;
  redactedRecords: number;
}

/**
 * Deletes the fact version `id` (`versions: "one"`) or every version of its key (`"all"`), and takes
 * the deleted values out of everything else the model reads (see redaction.ts): the messages that
 * state them (redacted and re-indexed), events, summaries (redacted and marked stale, as are those
 * covering the messages the versions came from), stored turn results and titles. A value that a
 * remaining fact still states is kept. Deleting one version never makes another current: the
 * current value stays unless it is the one deleted, and then the key has none until one is
 * learned or written. With `undoRecord`, its write (what the delete can be undone from, fact-undo.ts)
 * joins the batch. One batch. Returns the counts (all 0 when there was no such fact: deleting
 * twice is safe) and the values cut out, which the caller cuts out of the session windows too.
 */
export async function deleteFact(
  store: BaseStore,
  scope: UserScope,
  id: string,
  versions: FactVersions = "one",
  options: { undoRecord?: (deleted: FactRecord[], writes: Operation[]) => Promise<Operation> } = {},
): Promise<FactDeletion & { values: string[] }> {
  const facts = await loadFacts(store, scope);
  const target = facts.find((fact) => fact.id === id);
  if (!target) return { facts: 0, staleSummaries: 0, redactedMessages: 0, redactedRecords: 0, values: [] };
  const deleted = versions === "all" ? facts.filter((fact) => fact.key === target.key) : [target];
  const deletedIds = new Set(deleted.map((fact) => fact.id));
  const kept = new Set(facts.filter((fact) => !deletedIds.has(fact.id)).map((fact) => fact.value.trim().toLowerCase()));
  const values = [...new Set(deleted.map((fact) => fact.value))].filter((value) => !kept.has(value.trim().toLowerCase()));
  const sources = new Set(deleted.flatMap((fact) => fact.sourceMessageIds));
  const { writes, counts } = await redactionWrites(store, scope, values, sources);
  const undo = options.undoRecord ? [await options.undoRecord(deleted, writes)] : [];
  await store.batch([...deleted.map((fact): Operation => ({ namespace: namespaces.facts(scope), key: fact.id, value: null })), ...writes, ...undo]);
  return {
    facts: deleted.length,
    staleSummaries: counts.summaries,
    redactedMessages: counts.messages,
    redactedRecords: counts.records,
    values,
  };
}
