import type { BaseStore, Operation } from "@langchain/langgraph-checkpoint";
import { newestItems } from "../store-io.js";
import { namespaces } from "../namespaces.js";
import type { TranscriptRecord } from "../records.js";
import type { MemoryScope } from "../scope.js";
import { aliasKey, extractFromMessage, FUNCTIONAL, opensWithPronoun, type Extraction } from "./extract.js";
import { mergeExtractions } from "./model-extraction.js";
import { applyExtractions, type EntityRecord, type SourcedExtraction } from "./graph-records.js";
import { assembled, graphWrites, readNodes } from "./graph-store.js";

/**
 * The entity graph layer over the store port: each user's nodes are items of
 * `namespaces.entities(user)` (one per node, unindexed; the sources added since one was written in
 * a small item beside it, see graph-store.ts), so every engine keeps them in its own tables, per
 * tenant and user, and forgetting the user deletes them with the rest of the prefix.
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

/** The nodes, not among `loaded`, at the other end of the open edges that the extractions' one-valued relations may end. */
function endedTargets(loaded: ReadonlyMap<string, EntityRecord>, extractions: readonly SourcedExtraction[]): string[] {
  const keys = new Set<string>();
  for (const { extraction } of extractions) {
    for (const relation of extraction.relations) {
      if (!FUNCTIONAL.has(relation.type)) continue;
      for (const edge of loaded.get(relation.from)?.relations ?? []) {
        if (edge.type === relation.type && edge.validTo === undefined && edge.to !== relation.to && !loaded.has(edge.to)) keys.add(edge.to);
      }
    }
  }
  return [...keys];
}

/**
 * The writes that bring `user`'s graph up to date with `records` (about to be stored, or stored;
 * `models`: a model's extraction of some of them, merged in): a pronoun opening a record's sentence
 * is resolved with its session's active person (the last one named before it: by these records, else
 * by the session's newest stored messages, read only then); reads the
 * nodes they touch in one batch, applies their extractions, and returns the writes of each changed
 * node (`nodeWrites`: its tail alone when only sources were added), for the caller to add to the
 * batch that stores the messages. Nothing, and no read, when no record
 * names or relates anything.
 */
export async function entityGraphWrites(store: BaseStore, user: UserScope, records: readonly TranscriptRecord[], models: ReadonlyMap<string, Extraction> = new Map()): Promise<Operation[]> {
  return (await entityGraphUpdate(store, user, records, models)).writes;
}

/** `entityGraphWrites`, and each record's fact-augmented keys (by message id; see `factKeysOf`), for records that have some. */
export async function entityGraphUpdate(
  store: BaseStore,
  user: UserScope,
  records: readonly TranscriptRecord[],
  models: ReadonlyMap<string, Extraction> = new Map(),
): Promise<{ writes: Operation[]; keys: Map<string, string> }> {
  let found = extractionsAndActive(records, new Map(), models);
  // A pronoun with no person before it in these records: the session's stored messages say who (one read per such session).
  if (found.unresolved.size > 0) found = extractionsAndActive(records, await storedActive(store, user, records, [...found.unresolved]), models);
  const keys = new Map<string, string>();
  const byId = new Map(records.map((record) => [`${record.sessionId}\u0000${record.id}`, record]));
  for (const { extraction, source } of found.extractions) {
    const record = byId.get(`${source[0]}\u0000${source[1]}`);
    const text = record ? factKeysOf(extraction, record.text) : "";
    if (text !== "") keys.set(source[1], text);
  }
  // A message that names nothing and relates nothing ("ok thanks": only its speaker, unmentioned) changes no node: no read.
  const extractions = found.extractions.filter(({ extraction }) => extraction.relations.length > 0 || extraction.entities.some((entity) => entity.mentioned !== false || entity.aliases.length > 0));
  if (extractions.length === 0) return { writes: [], keys };
  const stored = await readNodes(store, user, touchedKeys(extractions));
  const nodes = new Map([...stored].map(([key, node]) => [key, assembled(node)]));
  // A one-valued relation's old value ends on its own node too: those nodes are read as well (a second read, only then).
  const ending = endedTargets(nodes, extractions);
  for (const [key, node] of ending.length > 0 ? await readNodes(store, user, ending) : []) {
    stored.set(key, node);
    nodes.set(key, assembled(node));
  }
  const { graph, changed } = applyExtractions(nodes, extractions);
  return { writes: graphWrites(user, stored, [...changed].map((key): [string, EntityRecord] => [key, graph.get(key) as EntityRecord])), keys };
}

/** A word of a key phrase: letters (any script), digits, apostrophes. */
const KEY_WORD = /[\p{L}\p{N}][\p{L}\p{N}'’]*/gu;

/**
 * A message's fact-augmented keys: the words of its relations ("Priya lives in Pune"; the speaker,
 * indexed with the text already, left out) and of the entities it mentions that `text` does not
 * hold itself, once each, in order: "She moved to Pune" said after naming Priya gives "Priya lives
 * in". "" when the text says it all. Pure.
 */
export function factKeysOf(extraction: Extraction, text: string): string {
  const names = new Map(extraction.entities.map((entity) => [entity.key, entity.name]));
  const self = extraction.entities.find((entity) => entity.mentioned === false)?.key;
  const phrases: string[] = [];
  for (const relation of extraction.relations) {
    const from = relation.from === self ? "" : (names.get(relation.from) ?? relation.from);
    phrases.push(`${from} ${relation.type.replace(/_/g, " ")} ${names.get(relation.to) ?? relation.to}`);
  }
  for (const entity of extraction.entities) if (entity.mentioned !== false) phrases.push(entity.name);
  const said = new Set((text.match(KEY_WORD) ?? []).map((word) => word.toLowerCase()));
  const added: string[] = [];
  for (const word of phrases.join(" ").match(KEY_WORD) ?? []) {
    const lower = word.toLowerCase();
    if (said.has(lower)) continue;
    said.add(lower);
    added.push(word);
  }
  return added.join(" ");
}
