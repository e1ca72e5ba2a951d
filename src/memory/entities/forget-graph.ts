import type { BaseStore, Operation } from "@langchain/langgraph-checkpoint";
import type { TranscriptRecord } from "../records.js";
import type { MemoryScope } from "../scope.js";
import { graphExtractions } from "./entity-graph.js";
import { applyExtractions, withoutSources, type EntityRecord, type SourceRef } from "./graph-records.js";
import { assembled, graphWrites, readAllNodes } from "./graph-store.js";

/**
 * What deleting or editing messages does to the entity graph: every node of the user is read (a
 * graph holds one node per name, far fewer than messages) and loses the mentions and edge sources
 * that came from the gone messages; a node or edge left with no source is deleted. The same rule as
 * for facts: what came only from a deleted message goes, what another message also states stays.
 */

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/** The writes that remove from `user`'s graph what came only from messages `gone` reports (deletes, and puts of the nodes that lose some sources). */
export async function graphForgetWrites(store: BaseStore, user: UserScope, gone: (ref: SourceRef) => boolean): Promise<Operation[]> {
  const stored = await readAllNodes(store, user);
  const next: [string, EntityRecord | null][] = [];
  for (const [key, node] of stored) {
    const whole = assembled(node);
    const kept = withoutSources(whole, gone);
    if (kept !== whole) next.push([key, kept]);
  }
  return graphWrites(user, stored, next);
}

/** Whether a source is one of the messages of `sessionId` (`id` set: that message only). */
export function fromMessages(sessionId: string, id?: string): (ref: SourceRef) => boolean {
  return (ref) => ref[0] === sessionId && (id === undefined || ref[1] === id);
}

/**
 * The writes that make the graph hold what `message`'s new text says instead of what its old text
 * said: its sources are removed from every node, then its extraction is applied to what remains.
 */
export async function graphRelearnWrites(store: BaseStore, user: UserScope, message: TranscriptRecord): Promise<Operation[]> {
  const stored = await readAllNodes(store, user);
  const gone = fromMessages(message.sessionId, message.id);
  const remaining = new Map<string, EntityRecord>();
  const deleted = new Set<string>();
  const lost = new Set<string>();
  for (const [key, node] of stored) {
    const whole = assembled(node);
    const kept = withoutSources(whole, gone);
    if (kept === null) deleted.add(key);
    else remaining.set(key, kept);
    if (kept !== whole) lost.add(key);
  }
  const { graph, changed } = applyExtractions(remaining, graphExtractions([message]));
  const next: [string, EntityRecord | null][] = [];
  for (const [key, node] of graph) if (changed.has(key) || lost.has(key)) next.push([key, node]);
  for (const key of deleted) if (!graph.has(key)) next.push([key, null]);
  return graphWrites(user, stored, next);
}
