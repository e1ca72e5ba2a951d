import { aliasKey, FUNCTIONAL, type Extraction } from "./extract.js";

/**
 * The entity graph's records and the pure functions that change them. One record per node (an
 * entity, or an alias such as "sister" that points at the entities it named), holding the node's
 * mentions and its edges; an edge is kept on both of its nodes (the inverse one's type starts with
 * "~"), so a walk reads one record per node. Every mention and edge names the messages it came from
 * (`SourceRef`); a node or edge whose sources are all gone is gone (`withoutSources`).
 */

/** A message a graph item came from: its session and id. */
export type SourceRef = [sessionId: string, messageId: string];

/** One edge of a node, with validity like a fact's: `validTo` set when a newer edge of a one-valued type superseded it. */
export interface RelationRecord {
  type: string;
  /** The other node's key. */
  to: string;
  sources: SourceRef[];
  validFrom: string;
  validTo?: string;
}

/** One node of a user's graph (the store item's value; its key is `key`). */
export interface EntityRecord {
  key: string;
  name: string;
  kind: string;
  aliases: string[];
  /** The messages that name it, oldest first, at most `MAX_MENTIONS` (the newest kept). */
  mentions: SourceRef[];
  relations: RelationRecord[];
  updatedAt: string;
}

/** Most mentions a node keeps (the newest): a bound on a node's size, not on the graph's. */
export const MAX_MENTIONS = 200;
/** Most sources an edge keeps (the newest): "I" naming the same town in every message must not grow one edge without end. */
export const MAX_EDGE_SOURCES = 50;

/** One message's extraction, with where and when it was said. */
export interface SourcedExtraction {
  extraction: Extraction;
  source: SourceRef;
  at: string;
}

const sameRef = (a: SourceRef, b: SourceRef): boolean => a[0] === b[0] && a[1] === b[1];

function addRef(list: SourceRef[], ref: SourceRef): void {
  if (!list.some((r) => sameRef(r, ref))) list.push(ref);
}

function nodeOf(graph: Map<string, EntityRecord>, key: string, name: string, kind: string, at: string): EntityRecord {
  let node = graph.get(key);
  if (!node) {
    node = { key, name, kind, aliases: [], mentions: [], relations: [], updatedAt: at };
    graph.set(key, node);
  }
  return node;
}

/** Adds an edge to `node` (or a source to the same open edge); returns the keys of the nodes whose edge of `type` from it the new one ended. */
function addEdge(node: EntityRecord, type: string, to: string, source: SourceRef, at: string): string[] {
  const current = node.relations.find((r) => r.type === type && r.to === to && r.validTo === undefined);
  if (current) {
    addRef(current.sources, source);
    if (current.sources.length > MAX_EDGE_SOURCES) current.sources.splice(0, current.sources.length - MAX_EDGE_SOURCES);
    return [];
  }
  const ended: string[] = [];
  if (FUNCTIONAL.has(type)) {
    // A one-valued relation: the newer value ends the older (kept, with its end time).
    for (const old of node.relations) {
      if (old.type !== type || old.validTo !== undefined || old.validFrom > at) continue;
      old.validTo = at;
      ended.push(old.to);
    }
  }
  node.relations.push({ type, to, sources: [source], validFrom: at });
  node.updatedAt = at;
  return ended;
}

/** Ends `node`'s open inverse edge of `type` to `from` at `at` (the other side of an edge `addEdge` ended); whether one was. */
function endInverse(node: EntityRecord, type: string, from: string, at: string): boolean {
  const inverse = node.relations.find((r) => r.type === `~${type}` && r.to === from && r.validTo === undefined && r.validFrom <= at);
  if (!inverse) return false;
  inverse.validTo = at;
  node.updatedAt = at;
  return true;
}

/**
 * Applies extractions, oldest first, to the nodes in `graph` (a copy is changed and returned; the
 * input records are not mutated). Returns the changed graph and the keys of the nodes it changed.
 */
export function applyExtractions(graph: ReadonlyMap<string, EntityRecord>, extractions: readonly SourcedExtraction[]): { graph: Map<string, EntityRecord>; changed: Set<string> } {
  // Only the nodes an extraction touches are copied (on first touch), and only their lists.
  const out = new Map<string, EntityRecord>(graph);
  const changed = new Set<string>();
  const copied = new Set<string>();
  const own = (key: string): EntityRecord | undefined => {
    const node = out.get(key);
    if (!node || copied.has(key)) return node;
    const copy = { ...node, aliases: [...node.aliases], mentions: [...node.mentions], relations: node.relations.map((r) => ({ ...r, sources: [...r.sources] })) };
    out.set(key, copy);
    copied.add(key);
    return copy;
  };
  for (const { extraction, source, at } of extractions) {
    const named = new Map(extraction.entities.map((entity) => [entity.key, entity]));
    // A node is made or copied when something is added to it: the speaker of a message that names nobody is not rewritten.
    const nodeFor = (key: string): EntityRecord | undefined => {
      const found = own(key);
      if (found) return found;
      const entity = named.get(key);
      if (!entity) return undefined;
      copied.add(key);
      return nodeOf(out, key, entity.name, entity.kind, at);
    };
    for (const entity of extraction.entities) {
      if (entity.mentioned === false && entity.aliases.length === 0) continue;
      own(entity.key);
      const node = nodeOf(out, entity.key, entity.name, entity.kind, at);
      copied.add(entity.key);
      changed.add(entity.key);
      if (entity.mentioned !== false) {
        addRef(node.mentions, source);
        if (node.mentions.length > MAX_MENTIONS) node.mentions.splice(0, node.mentions.length - MAX_MENTIONS);
      }
      node.updatedAt = at;
      for (const alias of entity.aliases) {
        if (!node.aliases.includes(alias)) node.aliases.push(alias);
        own(aliasKey(alias));
        const aliasNode = nodeOf(out, aliasKey(alias), alias, "alias", at);
        copied.add(aliasNode.key);
        addEdge(aliasNode, "names", entity.key, source, at);
        changed.add(aliasNode.key);
      }
    }
    for (const relation of extraction.relations) {
      const from = nodeFor(relation.from);
      const to = nodeFor(relation.to);
      if (!from || !to) continue;
      // The old value's inverse edge ends with it ("Priya moved to Mumbai": Pune no longer has Priya living there), when that node is at hand.
      for (const ended of addEdge(from, relation.type, relation.to, source, at)) {
        const old = own(ended);
        if (old && endInverse(old, relation.type, from.key, at)) changed.add(ended);
      }
      addEdge(to, `~${relation.type}`, relation.from, source, at);
      changed.add(from.key).add(to.key);
    }
  }
  return { graph: out, changed };
}

/**
 * A node without the sources `gone` reports gone: mentions and edge sources are dropped, an edge left
 * with none goes, and the node goes (null) when it keeps neither mentions nor edges. Returns the
 * same object when nothing of it came from a gone message. Pure.
 */
export function withoutSources(node: EntityRecord, gone: (ref: SourceRef) => boolean): EntityRecord | null {
  const touches = node.mentions.some(gone) || node.relations.some((r) => r.sources.some(gone));
  if (!touches) return node;
  const mentions = node.mentions.filter((ref) => !gone(ref));
  const relations = node.relations.flatMap((r) => {
    const sources = r.sources.filter((ref) => !gone(ref));
    return sources.length === 0 ? [] : [{ ...r, sources }];
  });
  if (mentions.length === 0 && relations.length === 0) return null;
  return { ...node, mentions, relations };
}
