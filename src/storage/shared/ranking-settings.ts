import type { HybridOptions } from "../../memory/ranking/hybrid.js";

/** Tuning of ranked search. */
export interface RankingSettings {
  /** Lexical matches considered, and recent items considered for the vector path. */
  candidateLimit: number;
  /** Cosine similarity below which a vector does not count as a hit. */
  minVectorSimilarity: number;
  /** The best lexical candidates also compared by vector (beside the recent items); all when unset. */
  vectorCandidates?: number;
  /** The most recent items compared by vector; `candidateLimit` when unset. */
  recentCandidates?: number;
  /** Feedback, neighbour context and fusion settings (see `rankHybrid`). */
  hybrid?: HybridOptions;
}
