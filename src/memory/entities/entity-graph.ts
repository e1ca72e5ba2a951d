import type { BaseStore, GetOperation, Operation, PutOperation } from "@langchain/langgraph-checkpoint";
import { newestItems } from "../store-io.js";
import { namespaces } from "../namespaces.js";
import type { TranscriptRecord } from "../records.js";
import type { MemoryScope } from "../scope.js";
import { aliasKey, extractFromMessage, opensWithPronoun, type Extraction } from "./extract.js";
import { mergeExtractions } from "./model-extraction.js";
import { applyExtractions, type EntityRecord, type SourcedExtraction } from "./graph-records.js";

/**
 * The entity graph layer over the store port: each user's nodes are items of
 * `namespaces.entities(user)` (one per node, unindexed), so every engine keeps them in its own
 * tables, per tenant and user, and forgetting the user deletes them with the rest of the prefix.
 *
 * Derived from: every stored message a person said (a user message, or any message that names
 * its speaker), by `extractFromMessage` at write time, in the batch that stores the messages.
 * Deleting a message removes what came only from it (`withoutSources`, see forget-graph.ts).
 */

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/** The node of the user themself, the subject of "I" and "my" in a user message that names no speaker. */
export const USER_NODE = "me";

/** Whether a stored message feeds the graph: said by a person (the user, or a named speaker), and recallable. */
export function feedsGraph(record: Pick<TranscriptRecord, "role" | "speaker" | "recall">): boolean {
  return record.recall !== false && (record.role === "user" || (record.speaker !== undefined && record.speaker !== ""));
}

/**
 * The extractions of `records` in the order they were said (by `createdAt`, then as given), each
 * with its source; "she"/"usko" resolve to the last person another message of the same session
 * named (the session's active entity), `active` seeding it per session; a record's extraction by a
 * model (`models`, by message id) is merged into the rules' one. Pure.
 */
export function graphExtractions(records: readonly TranscriptRecord[], active: ReadonlyMap<string, string> = new Map(), models: ReadonlyMap<string, Extraction> = new Map()): SourcedExtraction[] {
  return extractionsAndActive(records, active, models).extractions;
}

/** `graphExtractions`, and each session's active person after the records. */
function extractionsAndActive(
  records: readonly TranscriptRecord[],
  active: ReadonlyMap<string, string>,
  models: ReadonlyMap<string, Extraction>,
): { extractions: SourcedExtraction[]; active: Map<string, string>; unresolved: Set<string> } {
  const last = new Map(active);
  const unresolved = new Set<string>();
  const extractions = records
    .map((record, i) => ({ record, i }))
    .filter(({ record }) => feedsGraph(record))
    .sort((a, b) => a.record.createdAt.localeCompare(b.record.createdAt) || a.i - b.i)
    .map(({ record }) => {
      const speaker = record.speaker !== undefined && record.speaker.trim() !== "" ? record.speaker : USER_NODE;
      if (!last.has(record.sessionId) && opensWithPronoun(record.text)) unresolved.add(record.sessionId);
      const offline = extractFromMessage(record.text, speaker, last.get(record.sessionId));
      const model = models.get(record.id);
      const extraction = model ? mergeExtractions(offline, model) : offline;
      const self = speaker.trim().toLowerCase();
      for (const entity of extraction.entities) if (entity.kind === "person" && entity.key !== self && entity.mentioned !== false) last.set(record.sessionId, entity.key);
      return { extraction, source: [record.sessionId, record.id], at: record.createdAt } satisfies SourcedExtraction;
    });
  return { extractions, active: last, unresolved };
}

/** Most stored messages of a session read for its active person. */
const ACTIVE_CONTEXT = 8;

/**
 * The active person of each of `sessions`: the last person the session's newest stored messages
 * (not among `records`) named. One read per session.
 */
async function storedActive(store: BaseStore, user: UserScope, records: readonly TranscriptRecord[], sessions: readonly string[]): Promise<Map<string, string>> {
  const active = new Map<string, string>();
  const batch = new Set(records.map((record) => `${record.sessionId}\u0000${record.id}`));
  const read = await Promise.all(sessions.map((sessionId) => newestItems(store, namespaces.transcript({ ...user, sessionId }), { limit: ACTIVE_CONTEXT })));
  const earlier = read.flat().map((item) => item.value as TranscriptRecord).filter((record) => !batch.has(`${record.sessionId}\u0000${record.id}`));
  for (const [sessionId, key] of extractionsAndActive(earlier, new Map(), new Map()).active) active.set(sessionId, key);
  return active;
}

/** The nodes a set of extractions touches (the keys to read before they are applied). */
function touchedKeys(extractions: readonly SourcedExtraction[]): string[] {
  const keys = new Set<string>();
  for (const { extraction } of extractions) {
    for (const entity of extraction.entities) {
      keys.add(entity.key);
      for (const alias of entity.aliases) keys.add(aliasKey(alias));
    }
  }
  return [...keys];
}

/** The stored nodes under `keys` (absent ones left out), read in one batch. */
export async function loadNodes(store: BaseStore, user: UserScope, keys: readonly string[]): Promise<Map<string, EntityRecord>> {
  const namespace = namespaces.entities(user);
  const nodes = new Map<string, EntityRecord>();
  if (keys.length === 0) return nodes;
  const results = await store.batch<GetOperation[]>(keys.map((key): GetOperation => ({ namespace, key })));
  for (const item of results) if (item) nodes.set(item.key, item.value as EntityRecord);
  return nodes;
}

/** The put of one node (unindexed: the graph is read by key, never searched as text). */
export function nodePut(user: UserScope, node: EntityRecord): PutOperation {
  return { namespace: namespaces.entities(user), key: node.key, value: { ...node }, index: false };
}

/**
 * The writes that bring `user`'s graph up to date with `records` (about to be stored, or stored;
 * `models`: a model's extraction of some of them, merged in): a pronoun opening a record's sentence
 * is resolved with its session's active person (the last one named before it: by these records, else
 * by the session's newest stored messages, read only then); reads the
 * nodes they touch in one batch, applies their extractions, and returns a put per changed node, for
 * the caller to add to the batch that stores the messages. Nothing, and no read, when no record
 * names or relates anything.
 */
export async function entityGraphWrites(store: BaseStore, user: UserScope, records: readonly TranscriptRecord[], models: ReadonlyMap<string, Extraction> = new Map()): Promise<Operation[]> {
  let found = extractionsAndActive(records, new Map(), models);
  // A pronoun with no person before it in these records: the session's stored messages say who (one read per such session).
  if (found.unresolved.size > 0) found = extractionsAndActive(records, await storedActive(store, user, records, [...found.unresolved]), models);
  // A message that names nothing and relates nothing ("ok thanks": only its speaker, unmentioned) changes no node: no read.
  const extractions = found.extractions.filter(({ extraction }) => extraction.relations.length > 0 || extraction.entities.some((entity) => entity.mentioned !== false || entity.aliases.length > 0));
  if (extractions.length === 0) return [];
  const stored = await loadNodes(store, user, touchedKeys(extractions));
  const { graph, changed } = applyExtractions(stored, extractions);
  return [...changed].map((key) => nodePut(user, graph.get(key) as EntityRecord));
}
