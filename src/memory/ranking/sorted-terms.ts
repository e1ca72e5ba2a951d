/**
 * A restored index's terms as its snapshot holds them: distinct, in ascending order of their UTF-8
 * bytes (which is code point order, `compareCodePoints`), one byte string with each term's start.
 * A term is found by binary search over the bytes and made into a string only when asked for, so
 * restoring an index neither parses nor hashes its terms, and an index that is only queried holds
 * a few strings instead of one per term (a LongMemEval user's 5,000 terms: about 49 KB of bytes and
 * 20 KB of starts, where parsing them took most of a restore's time).
 */
export class SortedTerms {
  /** The terms made into strings so far, by number: a few hundred of thousands (an array of them all was 40 KB of heap per index). */
  private readonly strings = new Map<number, string>();

  /** `starts`: per term where its bytes start, and the end of the last; checked by `of`. */
  private constructor(
    private readonly bytes: Uint8Array,
    private readonly starts: Int32Array,
  ) {}

  /** The terms `bytes` hold, term `i` being `bytes[starts[i], starts[i + 1])`; throws unless they are distinct, ascending and in range. */
  static of(bytes: Uint8Array, starts: Int32Array): SortedTerms {
    const terms = new SortedTerms(bytes, starts);
    if (starts[0] !== 0 || starts[starts.length - 1] !== bytes.length) throw new Error("term bytes out of range");
    for (let i = 0; i < terms.count; i++) {
      // Plain locals, not a destructured pair: a fresh process restores before this is optimised.
      const from = starts[i] as number;
      const to = starts[i + 1] as number;
      if (to < from || (i > 0 && terms.compare(i - 1, bytes, from, to) >= 0)) throw new Error("terms not distinct and ascending");
    }
    return terms;
  }

  get count(): number {
    return this.starts.length - 1;
  }

  /** The number of `term`, or −1. */
  find(term: string): number {
    const length = utf8(term);
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const order = this.compare(mid, scratch, 0, length);
      if (order === 0) return mid;
      if (order < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Term `id` as a string (made on first use). */
  at(id: number): string {
    const known = this.strings.get(id);
    if (known !== undefined) return known;
    const term = text(this.bytes.subarray(this.starts[id], this.starts[id + 1]));
    this.strings.set(id, term);
    return term;
  }

  /** How term `id`'s bytes order against `key[from, to)`: negative, 0 or positive. */
  private compare(id: number, key: Uint8Array, from: number, to: number): number {
    const start = this.starts[id] as number;
    const length = (this.starts[id + 1] as number) - start;
    const n = Math.min(length, to - from);
    for (let i = 0; i < n; i++) {
      const d = (this.bytes[start + i] as number) - (key[from + i] as number);
      if (d !== 0) return d;
    }
    return length - (to - from);
  }
}

/**
 * `a` against `b` in code point order (negative, 0 or positive): the order of their UTF-8 bytes,
 * which `<` (UTF-16 code units) differs from only where a code point above U+FFFF (a surrogate pair)
 * meets one of U+E000–U+FFFF.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates after U+E000–U+FFFF.
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** `terms` (in code point order) as one UTF-8 byte string and each one's byte length. Pure. */
export function encodeSortedTerms(terms: readonly string[]): { bytes: Uint8Array; lengths: Int32Array } {
  const lengths = new Int32Array(terms.length);
  let bytes = new Uint8Array(1024);
  let end = 0;
  terms.forEach((term, i) => {
    if (end + term.length * 3 > bytes.length) {
      const grown = new Uint8Array(Math.max(bytes.length * 2, end + term.length * 3));
      grown.set(bytes.subarray(0, end));
      bytes = grown;
    }
    const { written } = encoder.encodeInto(term, bytes.subarray(end));
    lengths[i] = written;
    end += written;
  });
  return { bytes: bytes.slice(0, end), lengths };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** The UTF-8 bytes of the term being looked up (`utf8`). */
let scratch = new Uint8Array(256);

/** Writes `term` as UTF-8 into `scratch`; returns its length. An ASCII term (most) is copied as it is, without the encoder's call and result. */
function utf8(term: string): number {
  if (term.length * 3 > scratch.length) scratch = new Uint8Array(term.length * 3);
  for (let i = 0; i < term.length; i++) {
    const code = term.charCodeAt(i);
    if (code >= 0x80) return encoder.encodeInto(term, scratch).written;
    scratch[i] = code;
  }
  return term.length;
}

function text(bytes: Uint8Array): string {
  for (let i = 0; i < bytes.length; i++) if ((bytes[i] as number) >= 0x80) return decoder.decode(bytes);
  return String.fromCharCode.apply(null, bytes as unknown as number[]);
}

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
