import type { BaseMessage } from "@langchain/core/messages";
import { appendAndTrim, type MessageUpdate, type WindowLimits } from "./window.js";

/** Node-scoped memory: each LLM node's id mapped to that node's own messages. */
export type NodeMemory = Record<string, BaseMessage[]>;

/** An update to {@link NodeMemory}: for each node id named, the messages to merge in. */
export type NodeMemoryUpdate = Record<string, MessageUpdate>;

/**
 * A reducer for {@link NodeMemory}. Each node named in the update gets `appendAndTrim(limits)`
 * applied to its own messages (a node not seen before starts empty); nodes not named keep the
 * very same array. Returns a new object; neither argument is mutated. Node ids are stored as
 * own properties, so an id such as "__proto__" cannot reach the prototype.
 */
export function mergeNodeMemory(limits: WindowLimits): (current: NodeMemory, update: NodeMemoryUpdate) => NodeMemory {
  const reduce = appendAndTrim(limits);
  return (current, update) => {
    const merged = new Map<string, BaseMessage[]>(Object.entries(current ?? {}));
    for (const [node, messages] of Object.entries(update ?? {})) {
      merged.set(node, reduce(merged.get(node) ?? [], messages));
    }
    return Object.fromEntries(merged);
  };
}
