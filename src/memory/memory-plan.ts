import type { ContextLimits, RecallLimits } from "./limits.js";

/**
 * What memory one turn uses and keeps, as its caller asked (`useMemory`, `topK`,
 * `memorySections`, `remember`), resolved against the deployment's limits.
 */

/** The memory a turn can include: the conversation history, summaries, facts, events, similar messages. */
export const MEMORY_SECTIONS = ["history", "summaries", "facts", "events", "similar"] as const;
export type MemorySection = (typeof MEMORY_SECTIONS)[number];

/** The most similar past messages a turn may ask for. */
export const MAX_TOP_K = 50;

/** A turn's memory switches as the caller gave them (every one optional). */
export interface MemorySwitches {
  useMemory?: boolean;
  topK?: number;
  memorySections?: readonly MemorySection[];
  remember?: boolean;
}

/** One turn's memory, resolved. */
export interface MemoryPlan {
  /** False: no recall, no memory block, no history before the new message. */
  useMemory: boolean;
  /** The sections to include (none when `useMemory` is false). */
  sections: ReadonlySet<MemorySection>;
  /** Similar past messages to recall and show. */
  topK: number;
  /** False: nothing of this turn goes to long-term memory (the window keeps it for the session). */
  remember: boolean;
}

/** Resolves a turn's switches: by default memory is used, every section included, the turn remembered. Pure. */
export function memoryPlanOf(switches: MemorySwitches, recall: Pick<RecallLimits, "similarTopK">): MemoryPlan {
  const useMemory = switches.useMemory ?? true;
  return {
    useMemory,
    sections: new Set(useMemory ? (switches.memorySections ?? MEMORY_SECTIONS) : []),
    topK: switches.topK ?? recall.similarTopK,
    remember: switches.remember ?? true,
  };
}

/** The context limits of a turn that asked for `topK` similar messages: that many shown (within the token budget). */
export function contextLimitsFor(plan: MemoryPlan, limits: ContextLimits): ContextLimits {
  return plan.topK === limits.similar.items ? limits : { ...limits, similar: { ...limits.similar, items: plan.topK } };
}

/** Why a turn's message needs memory: it refers to what came before, it is about the user, or neither. */
export type MemoryNeedReason = "refers_back" | "about_user" | "standalone";

const NEED_PHRASES: Record<MemoryNeedReason, string> = {
  refers_back: "the message refers to what came before",
  about_user: "the message is about the user",
  standalone: "the message stands on its own",
};

/** Counts of what the memory block showed, by section. */
export type ShownCounts = Partial<Record<"summaries" | "facts" | "events" | "similar" | "recentTurns", number>>;

const NOUNS: [keyof ShownCounts, string, string][] = [
  ["facts", "fact", "facts"],
  ["summaries", "summary", "summaries"],
  ["events", "event", "events"],
  ["similar", "similar message", "similar messages"],
  ["recentTurns", "earlier turn", "earlier turns"],
];

/**
 * One short sentence: what memory a turn used and why, or why it used none. Pure.
 * `searchedSimilar` is false when the similar-message search was skipped.
 */
export function memoryReason(plan: MemoryPlan, need: MemoryNeedReason, shown: ShownCounts, searchedSimilar: boolean): string {
  if (!plan.useMemory) return "No memory was used: the request turned it off (use_memory false).";
  if (plan.sections.size === 0) return "No memory was used: the request named no memory sections.";
  const parts = NOUNS.filter(([key]) => (shown[key] ?? 0) > 0).map(([key, one, many]) => `${shown[key]} ${shown[key] === 1 ? one : many}`);
  const skipped = !searchedSimilar && plan.sections.has("similar") && plan.topK > 0 && need === "standalone" ? "; similar messages were not searched" : "";
  if (parts.length === 0) return `Nothing relevant was in memory (${NEED_PHRASES[need]}${skipped}).`;
  const list = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
  return `Used ${list}: ${NEED_PHRASES[need]}${skipped}.`;
}
