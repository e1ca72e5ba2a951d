import { clip } from "../../src/memory/clip.js";
import type { RenderedContext } from "../../src/memory/context.js";
import { DEFAULT_LIMITS } from "../../src/memory/limits.js";

/**
 * The share of `evidence` turns the rendered memory context shows: a turn counts when the context
 * holds the first part of its text as the similar-messages section clips it.
 */
export function evidenceShown(rendered: RenderedContext, evidence: readonly string[], texts: ReadonlyMap<string, string>): number {
  if (evidence.length === 0) return 1;
  const chars = DEFAULT_LIMITS.context.similar.chars;
  const found = evidence.filter((id) => {
    const text = texts.get(id);
    return text !== undefined && rendered.text.includes(clip(text, chars).replace(/…$/, ""));
  });
  return found.length / evidence.length;
}
