import type { BaseStore, Operation } from "@langchain/langgraph-checkpoint";
import { invalidInput } from "../../errors.js";
import { loadFacts } from "../facts.js";
import { namespaces } from "../namespaces.js";
import { redactionWrites, valueFinder } from "../redaction.js";
import type { MemoryScope } from "../scope.js";
import { USER_NODE } from "./entity-graph.js";
import { entityKey } from "./extract.js";
import { assembled, graphWrites, readNodes, type StoredNode } from "./graph-store.js";

/**
 * A person deletes an entity ("forget Priya"): the rule of deleting a fact, with the entity's name
 * as the value. Its node goes; its name is cut out of every layer the model reads (stored messages,
 * re-indexed; events, summaries marked stale, turn results, titles, the other nodes of the graph: see
 * redaction.ts); the fact versions whose value names it are deleted, since a fact is never redacted
 * in place. Aliases are relation words ("sister"), not names, and stay where other words say them.
 */

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/** What deleting an entity did; all 0 when the user's graph has no such entity (deleting twice is safe). */
export interface EntityDeletion {
  entities: number;
  facts: number;
  staleSummaries: number;
  redactedMessages: number;
  redactedRecords: number;
}

/**
 * Deletes the entity named `entity` (its key or name, normalised as keys are) from `user`'s memory
 * in one batch (see above). Returns the counts and the values cut out, which the caller cuts out of
 * the session windows too. An alias is no entity: naming one deletes nothing. The user's own node
 * (`USER_NODE`, "I" and "my") is INVALID_INPUT: it is no name to cut out; forgetting the user is.
 */
export async function deleteEntity(store: BaseStore, user: UserScope, entity: string): Promise<EntityDeletion & { values: string[] }> {
  const key = entityKey(entity);
  if (key === USER_NODE) throw invalidInput("entity", `"${USER_NODE}" is the user themself, not a name to forget: delete the user, or the facts and messages to forget`);
  const stored = key === "" || key.startsWith("~") ? new Map<string, StoredNode>() : await readNodes(store, user, [key]);
  const found = stored.get(key);
  const node = found ? assembled(found) : undefined;
  if (!node || node.kind === "alias") return { entities: 0, facts: 0, staleSummaries: 0, redactedMessages: 0, redactedRecords: 0, values: [] };
  const values = [node.name];
  const names = valueFinder(values);
  const facts = (await loadFacts(store, user)).filter((fact) => (names?.(fact.value).length ?? 0) > 0);
  const sources = new Set([
    ...node.mentions.map(([, messageId]) => messageId),
    ...node.relations.flatMap((relation) => relation.sources.map(([, messageId]) => messageId)),
    ...facts.flatMap((fact) => fact.sourceMessageIds),
  ]);
  const { writes, counts } = await redactionWrites(store, user, values, sources);
  // The redaction deletes the node too (its name is the value), counted as a record; here it is deleted once (with its tail), and counted as the entity.
  const records = namespaces.entities(user).join("\n");
  const graph = new Set([records, namespaces.entityTails(user).join("\n")]);
  const others = writes.filter((write) => !("key" in write && write.key === node.key && graph.has(write.namespace.join("\n"))));
  const counted = writes.filter((write) => "key" in write && write.key === node.key && write.namespace.join("\n") === records).length;
  const deletes: Operation[] = [...graphWrites(user, stored, [[key, null]]), ...facts.map((fact): Operation => ({ namespace: namespaces.facts(user), key: fact.id, value: null }))];
  await store.batch([...deletes, ...others]);
  return {
    entities: 1,
    facts: facts.length,
    staleSummaries: counts.summaries,
    redactedMessages: counts.messages,
    redactedRecords: counts.records - counted,
    values,
  };
}
