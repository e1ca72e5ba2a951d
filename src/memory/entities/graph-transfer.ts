import { MAX_EDGE_SOURCES, MAX_MENTIONS, type EntityRecord, type RelationRecord, type SourceRef } from "./graph-records.js";

/**
 * The entity graph in an export document, and back. An export carries every node (aliases too) as
 * stored, its sources as `{ sessionId, messageId }`; an import restores them rather than extract
 * them again from the imported messages: what a model's classification added, a pronoun resolved
 * across turns and a relation's validity are kept as they were, which the offline rules alone could
 * not give back. A restored node is merged into the one stored under its key (mentions, aliases,
 * edges and their sources united), so importing the same document twice changes nothing.
 */

/** A source as a document carries it. */
export interface SourceExport {
  sessionId: string;
  messageId: string;
}

/** One edge as a document carries it (`validTo` null while it holds). */
export interface RelationExport {
  type: string;
  to: string;
  validFrom: string;
  validTo: string | null;
  sources: SourceExport[];
}

/** One node as a document carries it. */
export interface EntityExport {
  key: string;
  name: string;
  kind: string;
  aliases: string[];
  mentions: SourceExport[];
  relations: RelationExport[];
  updatedAt: string;
}

const exported = ([sessionId, messageId]: SourceRef): SourceExport => ({ sessionId, messageId });
const stored = ({ sessionId, messageId }: SourceExport): SourceRef => [sessionId, messageId];

/** A stored node as a document carries it. Pure. */
export function entityExportOf(node: EntityRecord): EntityExport {
  return {
    key: node.key,
    name: node.name,
    kind: node.kind,
    aliases: [...node.aliases],
    mentions: node.mentions.map(exported),
    relations: node.relations.map((r) => ({ type: r.type, to: r.to, validFrom: r.validFrom, validTo: r.validTo ?? null, sources: r.sources.map(exported) })),
    updatedAt: node.updatedAt,
  };
}

/** A document's node as stored (the inverse of `entityExportOf`). Pure. */
export function entityRecordOf(node: EntityExport): EntityRecord {
  return {
    key: node.key,
    name: node.name,
    kind: node.kind,
    aliases: [...node.aliases],
    mentions: node.mentions.map(stored),
    relations: node.relations.map((r): RelationRecord => ({ type: r.type, to: r.to, sources: r.sources.map(stored), validFrom: r.validFrom, ...(r.validTo !== null ? { validTo: r.validTo } : {}) })),
    updatedAt: node.updatedAt,
  };
}

const refId = (ref: SourceRef): string => JSON.stringify(ref);

function unite(a: readonly SourceRef[], b: readonly SourceRef[], max: number): SourceRef[] {
  const seen = new Set(a.map(refId));
  const out = [...a];
  for (const ref of b) {
    if (seen.has(refId(ref))) continue;
    seen.add(refId(ref));
    out.push(ref);
  }
  return out.length > max ? out.slice(out.length - max) : out;
}

/**
 * `imported` merged into `current` (the node stored under its key, if any): aliases, mentions and
 * edges united (an edge is one type, target and start; its sources united, its end the stored one
 * if it has one, else the imported one), the stored name and kind kept, the later `updatedAt`.
 * Without a stored node, the imported one as it is. Pure; merging a node into itself gives it back.
 */
export function mergeNode(current: EntityRecord | undefined, imported: EntityRecord): EntityRecord {
  if (!current) return imported;
  const relations = current.relations.map((r) => ({ ...r, sources: [...r.sources] }));
  for (const edge of imported.relations) {
    const same = relations.find((r) => r.type === edge.type && r.to === edge.to && r.validFrom === edge.validFrom);
    if (!same) {
      relations.push({ ...edge, sources: [...edge.sources] });
      continue;
    }
    same.sources = unite(same.sources, edge.sources, MAX_EDGE_SOURCES);
    if (same.validTo === undefined && edge.validTo !== undefined) same.validTo = edge.validTo;
  }
  return {
    ...current,
    aliases: [...new Set([...current.aliases, ...imported.aliases])],
    mentions: unite(current.mentions, imported.mentions, MAX_MENTIONS),
    relations,
    updatedAt: current.updatedAt > imported.updatedAt ? current.updatedAt : imported.updatedAt,
  };
}
