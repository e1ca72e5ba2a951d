/** The share of `evidence` turns the rendered memory context shows (`shownIds`: the ids of the stored messages it shows). */
export function evidenceShown(shownIds: readonly string[], evidence: readonly string[]): number {
  if (evidence.length === 0) return 1;
  const shown = new Set(shownIds);
  return evidence.filter((id) => shown.has(id)).length / evidence.length;
}
