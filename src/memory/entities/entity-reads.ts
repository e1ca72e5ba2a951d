import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../../errors.js";
import { parsePage, type PageInput } from "../item-schemas.js";
import type { MemoryScope } from "../scope.js";
import { entityKey } from "./extract.js";
import type { EntityRecord, RelationRecord, SourceRef } from "./graph-records.js";
import { loadAllNodes, loadNodes } from "./graph-store.js";

/**
 * Reading a user's entity graph as a person sees it: the entities (aliases are not entities, they
 * show as an entity's `aliases`), and one entity with its relations over time and their sources.
 */

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/** An entity as a listing shows it. */
export interface EntitySummary {
  key: string;
  name: string;
  kind: string;
  aliases: string[];
  mentions: number;
  relations: number;
  updatedAt: string;
}

/** One relation of an entity, its sources as `{ sessionId, messageId }`. */
export interface EntityRelation {
  type: string;
  /** The other entity's key; an inverse relation's type starts with "~" ("~sister": the other calls this one their sister). */
  to: string;
  validFrom: string;
  validTo: string | null;
  sources: { sessionId: string; messageId: string }[];
}

/** One entity with what names it and how it relates to others, oldest first. */
export interface EntityDetail extends Omit<EntitySummary, "mentions" | "relations"> {
  mentions: { sessionId: string; messageId: string }[];
  relations: EntityRelation[];
}

const refOf = ([sessionId, messageId]: SourceRef) => ({ sessionId, messageId });

function summaryOf(node: EntityRecord): EntitySummary {
  return { key: node.key, name: node.name, kind: node.kind, aliases: [...node.aliases], mentions: node.mentions.length, relations: node.relations.length, updatedAt: node.updatedAt };
}

/**
 * The user's entities, most recently updated first (ties by key), `query` keeping those whose name,
 * key or an alias contains it (case aside), one page of them. INVALID_INPUT for a bad page.
 */
export async function listEntities(store: BaseStore, user: UserScope, options: PageInput & { query?: string } = {}): Promise<EntitySummary[]> {
  const { query, ...page } = options;
  const { limit, offset } = parsePage(page);
  const needle = query?.trim().toLowerCase() ?? "";
  const nodes = [...(await loadAllNodes(store, user)).values()].filter((node) => node.kind !== "alias");
  const matching = needle === "" ? nodes : nodes.filter((node) => [node.key, node.name.toLowerCase(), ...node.aliases].some((text) => text.includes(needle)));
  matching.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.key.localeCompare(b.key));
  return matching.slice(offset, offset + limit).map(summaryOf);
}

/** One entity by its key or name (normalised as keys are); ENTITY_NOT_FOUND when the user's graph has none. */
export async function getEntity(store: BaseStore, user: UserScope, entity: string): Promise<EntityDetail> {
  const key = entityKey(entity);
  const node = key === "" || key.startsWith("~") ? undefined : (await loadNodes(store, user, [key])).get(key);
  if (!node) throw new MemoryGraphError("NOT_FOUND", `no entity ${JSON.stringify(entity)} in this user's memory`, { kind: "user", field: "entity" });
  const relation = (r: RelationRecord): EntityRelation => ({ type: r.type, to: r.to, validFrom: r.validFrom, validTo: r.validTo ?? null, sources: r.sources.map(refOf) });
  return {
    key: node.key,
    name: node.name,
    kind: node.kind,
    aliases: [...node.aliases],
    updatedAt: node.updatedAt,
    mentions: node.mentions.map(refOf),
    relations: [...node.relations].sort((a, b) => a.validFrom.localeCompare(b.validFrom)).map(relation),
  };
}
