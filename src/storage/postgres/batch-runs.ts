import type { GetOperation, Operation, PutOperation } from "@langchain/langgraph-checkpoint";
import { pathOf } from "../shared/namespace.js";

/** An operation that writes a value (not a delete). */
export const isUpsert = (op: Operation): op is PutOperation => "value" in op && op.value !== null;
/** An operation that reads one item. */
export const isGet = (op: Operation): op is GetOperation => "key" in op && !("value" in op);

/** The operations from `start` on that pass `test`, stopping before a second one at the same namespace and key. */
export function runOf<T extends PutOperation | GetOperation>(operations: readonly Operation[], start: number, test: (op: Operation) => op is T): T[] {
  const run: T[] = [];
  const keys = new Set<string>();
  for (let i = start; i < operations.length; i++) {
    const op = operations[i] as Operation;
    if (!test(op)) break;
    const key = `${pathOf(op.namespace)}\u0000${op.key}`;
    if (keys.has(key)) break;
    keys.add(key);
    run.push(op);
  }
  return run;
}
