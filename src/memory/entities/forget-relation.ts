import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { invalidInput } from "../../errors.js";
import type { MemoryScope } from "../scope.js";
import { entityKey } from "./extract.js";
import type { EntityRecord, RelationRecord } from "./graph-records.js";
import { assembled, graphWrites, readNodes, type StoredNode } from "./graph-store.js";

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/** What deleting a relation did: its versions that went (each with its inverse on the other node) and the older edge current again (0 or 1). */
export interface RelationDeletion {
  relations: number;
  restoredRelations: number;
}

/**
 * A person deletes a relation ("Priya does not work at Infosys"): every version of the edge `type`
 * from `entity` to `to` goes, with its inverse on the other node, in one batch; named by its
 * inverse ("~works_at" from Infosys to Priya), it is the same relation. As a fact's delete
 * makes the version it had superseded current again, an edge of a one-valued type (lives_in,
 * works_at, …) that the deleted current one had ended is open again, on both its nodes. A node
 * left with neither mentions nor edges goes. The messages stay as they were said: no text is cut
 * out (forgetting the entity cuts its name, deleting a fact its value). Deleting again finds nothing.
 */
export async function deleteRelation(store: BaseStore, user: UserScope, entity: string, relation: { type: string; to: string }): Promise<RelationDeletion> {
  const type = relation.type.trim();
  if (type === "") throw invalidInput("type", "must name the relation's type (lives_in, works_at, sister, ~sister, …)");
  // Read from its forward side ("~lives_in" on Pune is Priya's lives_in): a one-valued type is one value of its subject.
  const [from, kind, to] = type.startsWith("~") ? [entityKey(relation.to), type.slice(1), entityKey(entity)] : [entityKey(entity), type, entityKey(relation.to)];
  const stored = from === "" || to === "" ? new Map<string, StoredNode>() : await readNodes(store, user, [from, to]);
  const nodes = new Map<string, EntityRecord>([...stored].map(([at, found]) => [at, structuredClone(assembled(found))]));
  const read = (key: string) => nodes.get(key)?.relations ?? [];
  const gone = read(from).filter((r) => r.type === kind && r.to === to);
  const goneInverse = read(to).filter((r) => r.type === `~${kind}` && r.to === from);
  if (gone.length === 0 && goneInverse.length === 0) return { relations: 0, restoredRelations: 0 };
  // The edge it had ended: the newest of its type from the same subject that ended when the deleted current one began.
  const current = gone.find((r) => r.validTo === undefined);
  const superseded = current
    ? read(from).filter((r) => r.type === kind && r.to !== to && r.validTo === current.validFrom).sort((a, b) => b.validFrom.localeCompare(a.validFrom))[0]
    : undefined;
  if (superseded && !stored.has(superseded.to)) {
    for (const [at, found] of await readNodes(store, user, [superseded.to])) {
      stored.set(at, found);
      nodes.set(at, structuredClone(assembled(found)));
    }
  }
  // A node the delete changes moves up the entity list, as any change of it does.
  const now = new Date().toISOString();
  const edit = (at: string, change: (relations: RelationRecord[]) => RelationRecord[]) => {
    const target = nodes.get(at);
    if (target) nodes.set(at, { ...target, relations: change(target.relations), updatedAt: now });
  };
  edit(from, (relations) => relations.filter((r) => !(r.type === kind && r.to === to)));
  edit(to, (relations) => relations.filter((r) => !(r.type === `~${kind}` && r.to === from)));
  if (superseded) {
    const reopen = (at: string, edgeType: string, other: string) =>
      edit(at, (relations) => relations.map((r) => (r.type === edgeType && r.to === other && r.validFrom === superseded.validFrom ? withoutEnd(r) : r)));
    reopen(from, kind, superseded.to);
    reopen(superseded.to, `~${kind}`, from);
  }
  const next = [...nodes].map(([at, found]): [string, EntityRecord | null] => [at, found.mentions.length === 0 && found.relations.length === 0 ? null : found]);
  await store.batch(graphWrites(user, stored, next));
  return { relations: Math.max(gone.length, goneInverse.length), restoredRelations: superseded ? 1 : 0 };
}

function withoutEnd(relation: RelationRecord): RelationRecord {
  const { validTo: _ended, ...open } = relation;
  return open;
}
