import type { BaseStore, GetOperation, PutOperation } from "@langchain/langgraph-checkpoint";
import { namespaces } from "../namespaces.js";
import type { MemoryScope } from "../scope.js";
import { listAll } from "../store-io.js";
import { MAX_EDGE_SOURCES, MAX_MENTIONS, type EntityRecord, type RelationRecord, type SourceRef } from "./graph-records.js";

/**
 * How a node of the entity graph is stored: its item in `namespaces.entities` (the record), and,
 * when messages only added sources to it since, a small item of the same key in
 * `namespaces.entityTails` holding those sources (the tail). Most turns only add a source to nodes
 * the user names again and again ("Chiang Mai" in every message); rewriting the whole record (up to
 * `MAX_MENTIONS` sources, ~10 KB) for each left a dead ~10 KB row version per turn on Postgres
 * (bench:storage 1.45x the commit before the graph); the tail's rewrite is a few hundred bytes. The
 * record is written again, the tail folded into it and emptied, when anything else changes (an
 * alias, an edge, a validity, a removed source) or when the tail would hold more than `MAX_TAIL`.
 *
 * Every reader gets the node as one record (`assembled`): the tail's sources after the record's,
 * the newest kept within the same bounds, so a node reads the same whichever way it was written.
 * Derived from: the node's record only (the tail means nothing without it); deleted with it.
 */

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/** The sources added to a node since its record was written, and when (the node's `updatedAt`); an empty one reads as none. */
export interface NodeTail {
  mentions: SourceRef[];
  /** Sources added to the record's edges, each with the index of its edge in the record's `relations`. */
  edgeSources: [edge: number, source: SourceRef][];
  updatedAt: string;
}

/** A node as stored: its record and its tail, if it has one. */
export interface StoredNode {
  record: EntityRecord;
  tail?: NodeTail;
}

/** Most sources a tail holds: past it the record is written again (its rewrite then costs 1/16 of a turn's, the tail's at most ~1 KB). */
export const MAX_TAIL = 16;

const refId = (ref: SourceRef): string => `${ref[0]}\u0000${ref[1]}`;

/** `list` with each source once (its last place kept), the newest `max`. */
function newestUnique(list: readonly SourceRef[], max: number): SourceRef[] {
  const last = new Map(list.map((ref, i) => [refId(ref), i]));
  return list.filter((ref, i) => last.get(refId(ref)) === i).slice(-max);
}

const tailSize = (tail: NodeTail | undefined): number => (tail ? tail.mentions.length + tail.edgeSources.length : 0);

/** The node as one record: the record with its tail's sources added (within `MAX_MENTIONS` and `MAX_EDGE_SOURCES`). Pure. */
export function assembled({ record, tail }: StoredNode): EntityRecord {
  if (!tail || tailSize(tail) === 0) return record;
  const relations = record.relations.map((relation, i) => {
    const added = tail.edgeSources.filter(([edge]) => edge === i).map(([, ref]) => ref);
    return added.length === 0 ? relation : { ...relation, sources: newestUnique([...relation.sources, ...added], MAX_EDGE_SOURCES) };
  });
  return { ...record, mentions: newestUnique([...record.mentions, ...tail.mentions], MAX_MENTIONS), relations, updatedAt: tail.updatedAt };
}

/** The sources `after` adds to `before`, if adding them (the newest `max` kept) is all that changed; null otherwise. */
function addedSources(before: readonly SourceRef[], after: readonly SourceRef[], max: number): SourceRef[] | null {
  const had = new Set(before.map(refId));
  const fresh = after.filter((ref) => !had.has(refId(ref)));
  const expected = newestUnique([...before, ...fresh], max);
  return expected.length === after.length && expected.every((ref, i) => refId(ref) === refId(after[i] as SourceRef)) ? fresh : null;
}

const sameEdge = (a: RelationRecord, b: RelationRecord): boolean => a.type === b.type && a.to === b.to && a.validFrom === b.validFrom && a.validTo === b.validTo;

/** What `next` adds to `before` when it only adds sources (mentions, sources of the same edges); null when anything else changed. Pure. */
export function sourcesAdded(before: EntityRecord, next: EntityRecord): Omit<NodeTail, "updatedAt"> | null {
  const same = before.key === next.key && before.name === next.name && before.kind === next.kind && before.aliases.join("\u0000") === next.aliases.join("\u0000");
  if (!same || before.aliases.length !== next.aliases.length || before.relations.length !== next.relations.length) return null;
  const mentions = addedSources(before.mentions, next.mentions, MAX_MENTIONS);
  if (!mentions) return null;
  const edgeSources: NodeTail["edgeSources"] = [];
  for (const [i, edge] of before.relations.entries()) {
    const after = next.relations[i] as RelationRecord;
    const fresh = sameEdge(edge, after) ? addedSources(edge.sources, after.sources, MAX_EDGE_SOURCES) : null;
    if (!fresh) return null;
    for (const ref of fresh) edgeSources.push([i, ref]);
  }
  return { mentions, edgeSources };
}

/** The put of a node's record (unindexed: the graph is read by key, never searched as text). */
export function nodePut(user: UserScope, node: EntityRecord): PutOperation {
  return { namespace: namespaces.entities(user), key: node.key, value: { ...node }, index: false };
}

/**
 * The writes that make the node `key` of `user`, stored as `stored` (undefined: none), read as
 * `next` (null: deleted): nothing when it reads so already; a put of its tail alone when `next`
 * only adds sources and the tail stays within `MAX_TAIL`; else its record written whole and its
 * tail, if it has one, emptied. Puts come before deletes, so a batch's puts stay one run.
 */
export function nodeWrites(user: UserScope, key: string, stored: StoredNode | undefined, next: EntityRecord | null): PutOperation[] {
  const tailAt = { namespace: namespaces.entityTails(user), key };
  if (next === null) return stored ? [{ namespace: namespaces.entities(user), key, value: null }, ...(stored.tail ? [{ ...tailAt, value: null }] : [])] : [];
  if (stored) {
    const before = assembled(stored);
    const added = sourcesAdded(before, next);
    const count = added ? added.mentions.length + added.edgeSources.length : 0;
    if (added && count === 0 && next.updatedAt === before.updatedAt) return [];
    // An empty tail reads as none (the record's `updatedAt` stands): a change of `updatedAt` alone rewrites the record.
    if (added && count > 0 && tailSize(stored.tail) + count <= MAX_TAIL) {
      const tail: NodeTail = {
        mentions: [...(stored.tail?.mentions ?? []), ...added.mentions],
        edgeSources: [...(stored.tail?.edgeSources ?? []), ...added.edgeSources],
        updatedAt: next.updatedAt,
      };
      return [{ ...tailAt, value: { ...tail }, index: false }];
    }
  }
  // A tail folded into the record is emptied, not deleted: written in place, it stays where it is on
  // SQLite's pages (deleted and made again, each new one left a hole among older rows: +0.4 MB over
  // bench:storage's 1,000 turns), and the batch stays a run of puts (one statement on Postgres).
  const emptied: NodeTail = { mentions: [], edgeSources: [], updatedAt: next.updatedAt };
  return [nodePut(user, next), ...(tailSize(stored?.tail) > 0 ? [{ ...tailAt, value: { ...emptied }, index: false as const }] : [])];
}

/** `nodeWrites` of many nodes, the puts first. */
export function graphWrites(user: UserScope, stored: ReadonlyMap<string, StoredNode>, next: Iterable<[key: string, node: EntityRecord | null]>): PutOperation[] {
  const writes = [...next].flatMap(([key, node]) => nodeWrites(user, key, stored.get(key), node));
  return [...writes.filter((op) => op.value !== null), ...writes.filter((op) => op.value === null)];
}

/** The stored nodes under `keys` (absent ones left out), records and tails read in one batch. */
export async function readNodes(store: BaseStore, user: UserScope, keys: readonly string[]): Promise<Map<string, StoredNode>> {
  const nodes = new Map<string, StoredNode>();
  if (keys.length === 0) return nodes;
  const reads = keys.flatMap((key): GetOperation[] => [
    { namespace: namespaces.entities(user), key },
    { namespace: namespaces.entityTails(user), key },
  ]);
  const results = await store.batch<GetOperation[]>(reads);
  keys.forEach((key, i) => {
    const record = results[2 * i]?.value as EntityRecord | undefined;
    const tail = results[2 * i + 1]?.value as NodeTail | undefined;
    if (record) nodes.set(key, tail ? { record, tail } : { record });
  });
  return nodes;
}

/** The stored nodes under `keys`, each as one record (see `assembled`). */
export async function loadNodes(store: BaseStore, user: UserScope, keys: readonly string[]): Promise<Map<string, EntityRecord>> {
  return new Map([...(await readNodes(store, user, keys))].map(([key, node]) => [key, assembled(node)]));
}

/** Every stored node of `user` (at most `cap` records), by key. */
export async function readAllNodes(store: BaseStore, user: UserScope, cap?: number): Promise<Map<string, StoredNode>> {
  const [records, tails] = await Promise.all([listAll(store, namespaces.entities(user), { cap }), listAll(store, namespaces.entityTails(user), { cap: Number.MAX_SAFE_INTEGER })]);
  const tailOf = new Map(tails.map((item) => [item.key, item.value as unknown as NodeTail]));
  return new Map(
    records.map((item) => {
      const tail = tailOf.get(item.key);
      const record = item.value as unknown as EntityRecord;
      return [item.key, tail ? { record, tail } : { record }];
    }),
  );
}

/** Every stored node of `user` (at most `cap`), each as one record. */
export async function loadAllNodes(store: BaseStore, user: UserScope, cap?: number): Promise<Map<string, EntityRecord>> {
  return new Map([...(await readAllNodes(store, user, cap))].map(([key, node]) => [key, assembled(node)]));
}
