import type { DocTable } from "./doc-table.js";
import type { Names } from "./sorted-terms.js";
import type { LexicalSource } from "./lexical-source.js";

/** The terms of document `slot` of `docs`, each as often as it occurs (numbered by `terms`). */
export function termsOfSlot(docs: DocTable, terms: Names, slot: number): string[] {
  const out: string[] = [];
  const range = docs.pairsOf(slot);
  const pool = range[2];
  for (let i = range[0]; i < range[1]; i += 2) {
    const term = terms.nameOf(pool[i] as number);
    for (let n = pool[i + 1] as number; n > 0; n--) out.push(term);
  }
  return out;
}

/** `wanted`'s terms (by number) that document `slot` of `docs` holds, each once, in the order of its pairs; no other term is made into a string. */
export function heldBySlot(docs: DocTable, wanted: ReadonlyMap<number, string>, slot: number): string[] {
  const held: string[] = [];
  if (wanted.size === 0) return held;
  const range = docs.pairsOf(slot);
  const pool = range[2];
  for (let i = range[0]; i < range[1]; i += 2) {
    const term = wanted.get(pool[i] as number);
    if (term !== undefined && !held.includes(term)) held.push(term);
  }
  return held;
}

/** For each of `ids`, which of `terms` it holds (`LexicalSource.heldOf`, else read from `termsOf`); ids holding none may be left out. */
export function termsHeld(source: LexicalSource, ids: readonly string[], terms: readonly string[]): Map<string, readonly string[]> {
  if (source.heldOf) return source.heldOf(ids, terms);
  const wanted = new Set(terms);
  const out = new Map<string, readonly string[]>();
  for (const [id, all] of source.termsOf(ids)) out.set(id, [...new Set(all.filter((term) => wanted.has(term)))]);
  return out;
}
