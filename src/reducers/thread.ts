/** Anything that sits in a regeneration tree: an id and the id of its parent (null at a root). */
export interface ThreadNode {
  id: string;
  parentId: string | null;
}

/**
 * The thread that ends at `leafId`: the chain of parents from the root down to the leaf
 * (inclusive), in root → leaf order, as Dify shows a conversation after regenerations.
 * The walk stops at a null parentId, at a parentId not found in `messages`, or at a message
 * already on the path (a cycle), so it always ends. An unknown `leafId` gives []. When two
 * messages share an id, the first one wins. Pure; `messages` is not mutated.
 */
export function extractThread<T extends ThreadNode>(messages: readonly T[], leafId: string): T[] {
  const byId = new Map<string, T>();
  for (const message of messages) {
    if (!byId.has(message.id)) byId.set(message.id, message);
  }
  const path: T[] = [];
  const seen = new Set<string>();
  let current = byId.get(leafId);
  while (current !== undefined && !seen.has(current.id)) {
    seen.add(current.id);
    path.push(current);
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return path.reverse();
}
