import type Database from "better-sqlite3";
import type { ListNamespacesOperation } from "@langchain/langgraph-checkpoint";
import { listScanRange, pickNamespaces } from "../shared/namespace.js";
import { LIVE } from "./schema.js";

/** Lists namespaces as every store does (see `pickNamespaces`), of items not expired at `now`. Expects `validateOperation` to have passed. */
export function listNamespaces(db: Database.Database, op: ListNamespacesOperation, now: number): string[][] {
  const { from, to } = listScanRange(op);
  const rows = db
    .prepare(`SELECT DISTINCT namespace FROM store_items i WHERE ns_path >= ? AND ns_path < ? AND ${LIVE}`)
    .all(from, to, now) as { namespace: string }[];
  return pickNamespaces(
    rows.map((row) => JSON.parse(row.namespace) as string[]),
    op,
  );
}
