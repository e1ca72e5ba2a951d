/**
 * Collapses whitespace and cuts `text` to at most `max` characters, at a word boundary when
 * one is near, ending with "…" when anything was cut.
 */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= max) return flat;
  const room = Math.max(1, max - 1);
  const cut = flat.slice(0, room);
  const space = cut.lastIndexOf(" ");
  const head = space >= room * 0.6 ? cut.slice(0, space) : cut;
  return `${head.replace(/[\s,;:.-]+$/, "")}…`;
}
