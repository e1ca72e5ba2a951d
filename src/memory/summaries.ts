import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { namespaces } from "./namespaces.js";
import type { SummaryRecord } from "./records.js";
import type { MemoryScope } from "./scope.js";
import { newestFirst, newestItems, valuesOf } from "./store-io.js";

/** The summaries layer: per-session summaries kept in the user's long-term memory. */

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/** Saves a summary, unindexed: summaries are read newest first, never searched by text (no full-text row, no vector). */
export async function saveSummary(store: BaseStore, scope: UserScope, summary: SummaryRecord): Promise<void> {
  await store.put(namespaces.summaries(scope), summary.id, { ...summary }, false);
}

/** The user's newest summaries (all sessions), newest first. */
export async function latestSummaries(store: BaseStore, scope: UserScope, limit: number): Promise<SummaryRecord[]> {
  const newest = valuesOf<SummaryRecord>(await newestItems(store, namespaces.summaries(scope), { limit }));
  return newestFirst(newest, (s) => s.createdAt);
}
