import { MemoryGraphError } from "../errors.js";

/** Anything that sits in a regeneration tree: an id and the id of its parent (null at a root). */
export interface ThreadNode {
  id: string;
  parentId: string | null;
}

/**
 * The thread that ends at `leafId`: the chain of parents from the root down to the leaf
 * (inclusive), in root → leaf order, as Dify shows a conversation after regenerations.
 * The walk stops at a null parentId or at a parentId not found in `messages`. A message that is
 * its own ancestor (a cycle) is refused with `THREAD_CYCLE` rather than looped on or cut short, so
 * history is never silently dropped. An unknown `leafId` gives []. When two messages share an id,
 * the first one wins. Pure; `messages` is not mutated.
 */
export function extractThread<T extends ThreadNode>(messages: readonly T[], leafId: string): T[] {
  const byId = new Map<string, T>();
  for (const message of messages) {
    if (!byId.has(message.id)) byId.set(message.id, message);
  }
  const path: T[] = [];
  const seen = new Set<string>();
  let current = byId.get(leafId);
  while (current !== undefined) {
    if (seen.has(current.id)) throw threadCycle(current.id);
    seen.add(current.id);
    path.push(current);
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return path.reverse();
}

/** The error of a thread whose parent links loop back to `id`: stored history is inconsistent. */
export function threadCycle(id: string): MemoryGraphError {
  return new MemoryGraphError("THREAD_CYCLE", `message ${id} is its own ancestor; the thread's parent links form a cycle`, { kind: "system" });
}
