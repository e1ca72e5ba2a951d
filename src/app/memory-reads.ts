import type { BaseStore } from "@langchain/langgraph";
import { importantEvents } from "../memory/events.js";
import { loadFacts } from "../memory/facts.js";
import type { EventRecord, FactRecord, SummaryRecord, TranscriptRecord } from "../memory/records.js";
import { validateUser, type MemoryScope } from "../memory/scope.js";
import { latestSummaries } from "../memory/summaries.js";
import { walkThread } from "../memory/transcript.js";

/** The most items of each layer `userMemory` lists. */
export const MAX_LISTED = 1000;

/** A user's long-term memory as the facade lists it: events, facts (with validity) and summaries. */
export interface UserMemory {
  events: EventRecord[];
  facts: FactRecord[];
  summaries: SummaryRecord[];
}

/**
 * The thread ending at `leafId`, root first: the walker follows parent links, one read per
 * message of the thread, so the cost grows with the thread and not with the whole transcript
 * (regenerated branches and all).
 */
export function sessionThread(store: BaseStore, scope: MemoryScope, leafId: string): Promise<TranscriptRecord[]> {
  return walkThread(store, scope, leafId, { max: Number.POSITIVE_INFINITY });
}

/** Every event (newest first, at most MAX_LISTED), every fact and the newest summaries of a user. */
export async function userMemory(store: BaseStore, user: Pick<MemoryScope, "tenantId" | "userId">): Promise<UserMemory> {
  const scope = validateUser(user);
  const [events, facts, summaries] = await Promise.all([
    importantEvents(store, scope, { minImportance: 0, limit: MAX_LISTED, window: MAX_LISTED }),
    loadFacts(store, scope),
    latestSummaries(store, scope, MAX_LISTED),
  ]);
  return { events, facts, summaries };
}
