import { sorted } from "./best-scores.js";
import { termsHeld } from "./document-terms.js";
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

/** Documents of the ranking's top that `demoteRepeats` compares: below them a document cannot reach a list's first places. */
const REPEAT_WINDOW = 30;

/**
 * `scores` with a repeat weighed by `weight` (see `HybridOptions.repeatWeight`): among the best
 * `REPEAT_WINDOW` documents, one that holds some of `asked` (the question's terms and the kinds it
 * asks for) but none that a better-scored document of its own conversation does not also hold —
 * the same thing said again in one session — so a list's places go to other answers. A document
 * found only as a neighbour holds none and is left alone. `scores` itself when `weight` is 1, the
 * source knows no groups or nothing is a repeat; else a new map.
 */
export function demoteRepeats(scores: Map<string, number>, source: LexicalSource, asked: readonly string[], weight: number): Map<string, number> {
  if (weight === 1 || !source.groupsOf || scores.size === 0) return scores;
  const top = sorted(scores, REPEAT_WINDOW);
  const ids = top.map((hit) => hit.id);
  const groups = source.groupsOf(ids);
  const heldBy = termsHeld(source, ids, asked);
  const better = new Map<string, Set<string>[]>();
  let out: Map<string, number> | undefined;
  for (const { id, score } of top) {
    const group = groups.get(id);
    const held = heldBy.get(id) ?? [];
    if (group === undefined || held.length === 0) continue;
    const before = better.get(group) ?? [];
    if (before.some((terms) => held.every((term) => terms.has(term)))) (out ??= new Map(scores)).set(id, score * weight);
    before.push(new Set(held));
    better.set(group, before);
  }
  return out ?? scores;
}
