import type { BaseStore } from "@langchain/langgraph-checkpoint";
import type { GraphWalkOptions } from "../limits.js";
import type { MemoryScope } from "../scope.js";
import { loadNodes } from "./graph-store.js";
import { queryEntityKeys } from "./extract.js";
import type { EntityRecord, SourceRef } from "./graph-records.js";

/** A message the walk reached, with how strongly. */
export interface GraphCandidate {
  sessionId: string;
  id: string;
  score: number;
}

/** A node named by more messages than this is too common to point anywhere: its mentions lend nothing (its edges still do). */
const COMMON_MENTIONS = 30;

/** A ring's share of a node's weight: the query's own entities 1, their neighbours a half, the next ring a quarter. */
const RING_DECAY = 0.5;

/**
 * The messages a bounded walk of `user`'s graph reaches from the entities `query` names (and the
 * entities its aliases, "my sister", point at): each node lends its mentions `1 / (1 + ln(1 +
 * mentions))` (with `mentions`, and only when at most `COMMON_MENTIONS`: a rare name says more than
 * the user's own) and each source of its edges 1, times its ring's share; the next ring is the nodes its edges lead to, at most `maxNodes` per ring. At most
 * `candidates`, best first (ties: first reached). Reads one batch per ring; nothing when the query
 * names no known entity.
 */
export async function walkEntityGraph(store: BaseStore, user: Pick<MemoryScope, "tenantId" | "userId">, query: string, options: GraphWalkOptions): Promise<GraphCandidate[]> {
  const keys = queryEntityKeys(query);
  if (keys.length === 0) return [];
  const seeds = await loadNodes(store, user, keys.slice(0, options.maxNodes));
  // An alias node ("~sister") stands for the entities it names.
  const named = [...seeds.values()].filter((node) => node.kind === "alias").flatMap((node) => node.relations.map((r) => r.to));
  for (const node of [...seeds.values()]) if (node.kind === "alias") seeds.delete(node.key);
  if (named.length > 0) for (const [key, node] of await loadNodes(store, user, named.filter((k) => !seeds.has(k)).slice(0, options.maxNodes))) seeds.set(key, node);
  const scores = new Map<string, GraphCandidate>();
  const credit = (ref: SourceRef, amount: number): void => {
    const id = `${ref[0]}\u0000${ref[1]}`;
    const found = scores.get(id);
    if (found) found.score += amount;
    else scores.set(id, { sessionId: ref[0], id: ref[1], score: amount });
  };
  const visited = new Set<string>();
  let ring: EntityRecord[] = [...seeds.values()];
  let share = 1;
  for (let hop = 0; ring.length > 0; hop++) {
    const next: string[] = [];
    for (const node of ring) {
      visited.add(node.key);
      const each = share / (1 + Math.log(1 + node.mentions.length));
      if (options.mentions && node.mentions.length <= COMMON_MENTIONS) for (const ref of node.mentions) credit(ref, each);
      // The newest edges first: what is current says most, and bounds the next ring.
      for (const relation of [...node.relations].reverse()) {
        for (const ref of relation.sources) credit(ref, share);
        if (!visited.has(relation.to) && !relation.to.startsWith("~")) next.push(relation.to);
      }
    }
    if (hop >= options.hops) break;
    const wanted = [...new Set(next)].filter((key) => !visited.has(key)).slice(0, options.maxNodes);
    ring = [...(await loadNodes(store, user, wanted)).values()];
    share *= RING_DECAY;
  }
  return [...scores.values()].sort((a, b) => b.score - a.score).slice(0, options.candidates);
}
