/**
 * Kinds of the things a list question asks for, for query expansion (`HybridOptions.categoryTerms`):
 * "What activities does Melanie partake in?" is answered by "I just signed up for a pottery class"
 * and "I'm off to go swimming", which share no word with it. Per category word (activities, sports,
 * games, instruments, pets, countries, cities, states, foods, desserts, exercises, events; and the
 * places a "Where …?" question asks for), the terms of what WordNet 3.1 files under it
 * (category-kinds-table.ts, written by scripts/category-kinds.ts). Recall loads this module with a
 * dynamic import, only when it expands a question (`limits.recall.categoryWeight` above 0).
 */
import { CATEGORY_KINDS } from "./category-kinds-table.js";

/** Category words that ask for the kinds of another. */
const SAME_AS: Readonly<Record<string, string>> = { hobbi: "activ" };

/**
 * The table's row of places (land and water features, buildings, facilities), which a "Where …?"
 * question asks for (`asksWhere`). "where" is a stop word, so no query term names it: "What places
 * has Joanna submitted her work to?" (film festivals) is not expanded with it.
 */
export const PLACE_CATEGORY = "where";

/**
 * The terms of the kinds of every category word among `queryTerms` (tokenized) and `asked` (category
 * words the question's form asks for: `PLACE_CATEGORY`), without the query's own terms, in the
 * table's order; [] when it names none. Pure.
 */
export function categoryTermsOf(queryTerms: readonly string[], asked: readonly string[] = []): string[] {
  const own = new Set(queryTerms);
  const found = new Set<string>();
  for (const term of new Set([...queryTerms, ...asked])) {
    const category = Object.hasOwn(SAME_AS, term) ? SAME_AS[term] : term;
    const kinds = category !== undefined && Object.hasOwn(CATEGORY_KINDS, category) ? CATEGORY_KINDS[category] : undefined;
    if (kinds === undefined) continue;
    for (const kind of kinds.split(" ")) if (!own.has(kind)) found.add(kind);
  }
  return [...found];
}
