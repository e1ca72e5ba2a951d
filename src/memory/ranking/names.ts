import type { SortedTerms } from "./sorted-terms.js";

/**
 * Strings seen by any index (terms mostly), so that indexes of many users share one copy of a common
 * word: 1,000 indexes of 200 synthetic messages hold 58 MB of heap with it, 85 MB without.
 */
const sharedStrings = new Map<string, string>();
const SHARED_STRINGS_MAX = 100_000;

function sharedCopy(name: string): string {
  const known = sharedStrings.get(name);
  if (known !== undefined) return known;
  // Full: start over (the indexes keep the strings they hold); ~7 MB at most.
  if (sharedStrings.size >= SHARED_STRINGS_MAX) sharedStrings.clear();
  sharedStrings.set(name, name);
  return name;
}

/**
 * Strings numbered in order of first sight (terms, labels, speakers, groups of one index), so a
 * document stores small integers instead of its own copies of them. A restored index's terms come
 * first, as its snapshot holds them (`ofSorted`): found by binary search over their bytes, made
 * into strings when asked, not shared with other indexes (sharing them meant hashing every term of
 * the user on the first query).
 */
export class Names {
  private readonly ids = new Map<string, number>();
  /** The names numbered from `sorted.count` on. */
  private readonly list: string[] = [];

  constructor(private readonly sorted?: SortedTerms) {}

  /** Names numbered in the order of `sorted`; names interned later are numbered after them as usual. */
  static ofSorted(sorted: SortedTerms): Names {
    return new Names(sorted);
  }

  /** The number of `name`, assigned when new. */
  intern(name: string): number {
    let id = this.find(name);
    if (id < 0) {
      const copy = sharedCopy(name);
      id = this.size;
      this.ids.set(copy, id);
      this.list.push(copy);
    }
    return id;
  }

  /**
   * The number of `name`, or −1 when it was never interned. A restored term found by binary search
   * is kept in `ids` too: a document applied on top of a snapshot repeats its words, and so do the
   * next ones (applying a LongMemEval user's ~20 rows since its snapshot, ~2,000 words: 0.95 → 0.62
   * ms in a CPU profile of 11,900 such restores).
   */
  find(name: string): number {
    const id = this.ids.get(name);
    if (id !== undefined || !this.sorted) return id ?? -1;
    const found = this.sorted.find(name);
    if (found >= 0) this.ids.set(name, found);
    return found;
  }

  /** Name number `id`. */
  nameOf(id: number): string {
    const base = this.sorted?.count ?? 0;
    return id < base ? (this.sorted as SortedTerms).at(id) : (this.list[id - base] as string);
  }

  /** Every name, by number. */
  all(): string[] {
    return Array.from({ length: this.size }, (_, id) => this.nameOf(id));
  }

  get size(): number {
    return (this.sorted?.count ?? 0) + this.list.length;
  }
}
