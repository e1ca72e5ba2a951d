import { DEFAULT_RETENTION, type RetentionPolicy } from "./retention-policy.js";
import { DEFAULT_WINDOW_LIMITS, type WindowLimits } from "../messages/window-limits.js";

/** How recall searches the store. */
export interface RecallLimits {
  /** Similar past messages returned. */
  similarTopK: number;
  /** Minimum cosine similarity for a vector hit (lexical hits are not held to it). */
  minVectorScore: number;
  /** At most this many stored messages are compared with the query. */
  maxCandidates: number;
  /** Below this many stored messages, the user's other sessions are searched too. */
  thinSessionMessages: number;
  summaries: number;
  importantEvents: number;
  importantMinScore: number;
  recentTurns: number;
  /**
   * Most milliseconds recall waits for the new message's vector before it ranks lexically (the
   * vector is still computed and stored with the message).
   */
  vectorWaitMs: number;
  /** How recall walks the user's entity graph (see entities/entity-walk.ts). */
  graph: GraphWalkOptions;
  /**
   * Weight of the kinds of thing a list question asks for ("pottery", "swimming" for "What
   * activities …?", from WordNet: ranking/category-kinds.ts) in its ranking; 0 turns it off.
   * Default 0.5 (LoCoMo and LongMemEval development sets, docs/recall.md).
   */
  categoryWeight: number;
  /**
   * Weight (0..1 of the best score) added to the hits written inside the window of time a
   * first-person question names ("10 days ago", "in the past three months"), placed against the
   * moment it is asked (memory/query-window.ts); 0 turns it off.
   */
  timeWindowWeight: number;
}

/** How recall walks the entity graph; each part can be turned off for ablations. */
export interface GraphWalkOptions {
  /** Whether recall walks the graph at all (off: the ranking is the store's alone). */
  walk: boolean;
  /** Hops from the query's entities: 0 reads only their own messages, 1 their neighbours' too, 2 one more ring. */
  hops: number;
  /** Whether the messages that merely name a reached entity count (off: only the sources of its relations do). */
  mentions: boolean;
  /** Most nodes read per ring: a bound on the walk's reads. */
  maxNodes: number;
  /** Messages the walk hands to the ranking, best first. */
  candidates: number;
  /** Weight of the walk's list in the reciprocal-rank fusion with the store's ranking (which weighs 1). */
  weight: number;
  /**
   * Fact-augmented keys (an ablation, a write-time switch): each message written is also indexed
   * under the relations extracted from it (`keys`: "Priya lives in Pune" for "She moved to Pune"),
   * the words its text does not say itself.
   */
  factKeys: boolean;
}

/** Item and character limits of one prompt section. */
export interface SectionLimit {
  items: number;
  chars: number;
}

/** How the prompt's memory sections are bounded. */
export interface ContextLimits {
  history: SectionLimit;
  summaries: SectionLimit;
  facts: SectionLimit;
  events: SectionLimit;
  similar: SectionLimit;
  recentTurns: SectionLimit;
  /** The whole memory context (everything but the system prompt, history and new message). */
  tokenBudget: number;
}

/** Every limit of the memory system, with the defaults of architecture.yaml. */
export interface MemoryLimits {
  window: WindowLimits;
  sessionTtlSeconds: number;
  summaryInterval: number;
  importanceThreshold: number;
  retention: RetentionPolicy;
  recall: RecallLimits;
  context: ContextLimits;
  /** Longest accepted prompt, in characters. */
  maxPromptChars: number;
}

export const DEFAULT_LIMITS: MemoryLimits = {
  window: DEFAULT_WINDOW_LIMITS,
  sessionTtlSeconds: 1800,
  summaryInterval: 10,
  importanceThreshold: 0.5,
  retention: DEFAULT_RETENTION,
  recall: {
    similarTopK: 8,
    minVectorScore: 0.45,
    maxCandidates: 200,
    thinSessionMessages: 50,
    summaries: 3,
    importantEvents: 5,
    importantMinScore: 0.7,
    recentTurns: 6,
    vectorWaitMs: 25,
    graph: { walk: false, hops: 1, mentions: true, maxNodes: 16, candidates: 50, weight: 0.1, factKeys: false },
    categoryWeight: 0.5,
    timeWindowWeight: 0.3,
  },
  context: {
    history: { items: 10, chars: 200 },
    summaries: { items: 3, chars: 240 },
    facts: { items: 5, chars: 200 },
    events: { items: 5, chars: 200 },
    similar: { items: 8, chars: 300 },
    recentTurns: { items: 6, chars: 180 },
    tokenBudget: 2000,
  },
  maxPromptChars: 32_000,
};

export type LimitsInput = {
  [K in keyof MemoryLimits]?: MemoryLimits[K] extends object ? Partial<MemoryLimits[K]> : MemoryLimits[K];
};

/** Fills the limits a caller left out with the defaults. */
export function resolveLimits(input: LimitsInput = {}): MemoryLimits {
  return {
    window: { ...DEFAULT_LIMITS.window, ...input.window },
    sessionTtlSeconds: input.sessionTtlSeconds ?? DEFAULT_LIMITS.sessionTtlSeconds,
    summaryInterval: input.summaryInterval ?? DEFAULT_LIMITS.summaryInterval,
    importanceThreshold: input.importanceThreshold ?? DEFAULT_LIMITS.importanceThreshold,
    retention: { ...DEFAULT_LIMITS.retention, ...input.retention },
    recall: { ...DEFAULT_LIMITS.recall, ...input.recall },
    context: { ...DEFAULT_LIMITS.context, ...input.context },
    maxPromptChars: input.maxPromptChars ?? DEFAULT_LIMITS.maxPromptChars,
  };
}
