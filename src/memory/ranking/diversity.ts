import type { LexicalSource } from "./lexical-source.js";

/**
 * `scores` with each document weighed by `decay` once for every better-scored document of its own
 * conversation (see `HybridOptions.groupDecay`): the k-th best of a conversation keeps
 * `decay^(k-1)` of its score, so one conversation's turns around a strong match yield places to
 * other conversations' matches. `scores` itself when `decay` is 1 or the source knows no groups.
 * Pure: a new map is returned.
 */
export function spreadAcrossGroups(scores: Map<string, number>, source: LexicalSource, decay: number): Map<string, number> {
  if (decay === 1 || !source.groupsOf || scores.size === 0) return scores;
  const groups = source.groupsOf(scores.keys());
  const seen = new Map<string, number>();
  const spread = new Map<string, number>();
  const order = [...scores].sort((a, b) => b[1] - a[1]);
  for (const [id, score] of order) {
    const group = groups.get(id);
    if (group === undefined) {
      spread.set(id, score);
      continue;
    }
    const above = seen.get(group) ?? 0;
    seen.set(group, above + 1);
    spread.set(id, score * decay ** above);
  }
  return spread;
}
