import type { RenderedContext } from "../../src/memory/context.js";

/** The share of `evidence` turns the rendered memory context shows (a line of each, whole or in part). */
export function evidenceShown(rendered: RenderedContext, evidence: readonly string[]): number {
  if (evidence.length === 0) return 1;
  const shown = new Set(rendered.shownIds ?? []);
  return evidence.filter((id) => shown.has(id)).length / evidence.length;
}
