import type { BaseStore, Operation } from "@langchain/langgraph-checkpoint";
import { namespaces } from "./namespaces.js";
import type { SummaryRecord } from "./records.js";
import type { MemoryScope } from "./scope.js";
import { listAll, valuesOf } from "./store-io.js";

/**
 * The writes that mark stale every summary (not already stale) covering one of `messageIds`: a
 * summary quotes what it covers, so once a person deletes or corrects a message, or a fact learned
 * from one, the summary no longer says what memory holds. Recall leaves stale summaries out.
 */
export async function staleSummaryWrites(
  store: BaseStore,
  scope: Pick<MemoryScope, "tenantId" | "userId">,
  messageIds: ReadonlySet<string>,
): Promise<Operation[]> {
  if (messageIds.size === 0) return [];
  const summaries = valuesOf<SummaryRecord>(await listAll(store, namespaces.summaries(scope)));
  return summaries
    .filter((summary) => !summary.stale && summary.messageIds.some((id) => messageIds.has(id)))
    .map((summary): Operation => ({ namespace: namespaces.summaries(scope), key: summary.id, value: { ...summary, stale: true }, index: false }));
}

/** The summaries recall may show: those not marked stale. */
export function freshSummaries(summaries: readonly SummaryRecord[]): SummaryRecord[] {
  return summaries.filter((summary) => !summary.stale);
}
