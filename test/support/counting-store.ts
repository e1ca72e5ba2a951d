import { InMemoryStore, type Operation, type OperationResults } from "@langchain/langgraph";

/** One store operation as the counting store saw it: its kind, namespace and key (for a get or put). */
export interface SeenOperation {
  kind: "get" | "put" | "search" | "listNamespaces";
  namespace: string;
  key?: string;
}

/**
 * A real InMemoryStore that records every operation it serves (every BaseStore method goes
 * through `batch`), so a test can count the reads a request makes.
 */
export class CountingStore extends InMemoryStore {
  readonly seen: SeenOperation[] = [];

  override async batch<Op extends readonly Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    for (const op of operations) this.seen.push(describe(op));
    return super.batch(operations);
  }

  /** The gets of `key` (in any namespace ending with `suffix`) seen since `from`. */
  getsOf(key: string, suffix: string, from = 0): number {
    return this.seen.slice(from).filter((op) => op.kind === "get" && op.key === key && op.namespace.endsWith(suffix)).length;
  }
}

function describe(op: Operation): SeenOperation {
  if ("namespacePrefix" in op) return { kind: "search", namespace: op.namespacePrefix.join("/") };
  if ("value" in op) return { kind: "put", namespace: op.namespace.join("/"), key: op.key };
  if ("key" in op) return { kind: "get", namespace: op.namespace.join("/"), key: op.key };
  return { kind: "listNamespaces", namespace: "" };
}
