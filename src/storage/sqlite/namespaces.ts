import type Database from "better-sqlite3";
import type { ListNamespacesOperation } from "@langchain/langgraph-checkpoint";
import { listScanRange, pickNamespaces } from "../shared/namespace.js";

/** Lists namespaces as every store does (see `pickNamespaces`). Expects `validateOperation` to have passed. */
export function listNamespaces(db: Database.Database, op: ListNamespacesOperation): string[][] {
  const { from, to } = listScanRange(op);
  const rows = db
    .prepare("SELECT DISTINCT namespace FROM store_items WHERE ns_path >= ? AND ns_path < ?")
    .all(from, to) as { namespace: string }[];
  return pickNamespaces(
    rows.map((row) => JSON.parse(row.namespace) as string[]),
    op,
  );
}
