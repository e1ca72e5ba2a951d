import { MemoryGraphError } from "../../errors.js";
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

/**
 * A store's ranking settings from its options, defaults filled (minimum similarity 0.45, 200
 * candidates, 50 by vector, 100 recent; neighbour context only reorders matches, as `BaseStore`
 * search returns matches only). Throws INVALID_INPUT naming `store` when a value is out of range.
 */
export function rankingSettingsOf(store: string, options: Partial<RankingSettings>): RankingSettings {
  const settings: RankingSettings = {
    minVectorSimilarity: options.minVectorSimilarity ?? 0.45,
    candidateLimit: options.candidateLimit ?? 200,
    vectorCandidates: options.vectorCandidates ?? 50,
    recentCandidates: options.recentCandidates ?? 100,
    hybrid: { includeContextOnly: false, ...options.hybrid },
  };
  const { minVectorSimilarity, candidateLimit, vectorCandidates = 0, recentCandidates = 0 } = settings;
  const counts = [candidateLimit, vectorCandidates + 1, recentCandidates + 1];
  if (!(minVectorSimilarity >= -1 && minVectorSimilarity <= 1) || !counts.every((n) => Number.isInteger(n) && n >= 1)) {
    throw new MemoryGraphError(
      "INVALID_INPUT",
      `${store}: minVectorSimilarity must lie in -1..1, candidateLimit be an integer ≥ 1, vectorCandidates and recentCandidates integers ≥ 0`,
      { kind: "user", field: "options" },
    );
  }
  return settings;
}
