/**
 * Collapses whitespace and cuts `text` to at most `max` characters, at a word boundary when
 * one is near, ending with "…" when anything was cut. Reads only as much of a long text as the
 * result needs (collapsing whitespace only shortens text).
 */
export function clip(text: string, max: number): string {
  for (let look = 2 * max + 64; ; look *= 4) {
    const whole = look >= text.length;
    const flat = (whole ? text : text.slice(0, look)).replace(/\s+/g, " ").trim();
    if (whole) return flat.length <= max ? flat : cut(flat, max);
    // The part's collapsed form is the whole's up to its last character: enough once it is longer.
    if (flat.length > max + 1) return cut(flat, max);
  }
}

function cut(flat: string, max: number): string {
  const room = Math.max(1, max - 1);
  const head = flat.slice(0, room);
  const space = head.lastIndexOf(" ");
  const kept = space >= room * 0.6 ? head.slice(0, space) : head;
  return `${kept.replace(/[\s,;:.-]+$/, "")}…`;
}

/**
 * `text` itself when it has at most `max` characters; else its first `max - 1` (one fewer when
 * that would end inside a surrogate pair) followed by "…". Whitespace is left as it is.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(0, max - 1);
  const code = text.charCodeAt(keep - 1);
  return `${text.slice(0, code >= 0xd800 && code <= 0xdbff ? keep - 1 : keep)}…`;
}
