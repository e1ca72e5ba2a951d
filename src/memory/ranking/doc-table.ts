import type { Names } from "./sorted-terms.js";
import { unfilledInt32, type LazyItems } from "./varints.js";

/** Room for documents to be added, and the [termId, tf] pairs they hold at most (their terms counted with repeats). */
export interface Room {
  documents: number;
  pairs: number;
}

const NO_ROOM: Room = { documents: 0, pairs: 0 };

/** Per-document [termId, tf] pairs in order of first appearance, built in reused buffers. */
const build = { pairs: new Int32Array(64), seenAt: new Int32Array(64).fill(-1), stamp: new Int32Array(64) };
let buildStamp = 0;

/**
 * The distinct terms of `terms` as [termId, tf] pairs (`pairs[0..2n)`) in order of first appearance,
 * each numbered by `names`. The pairs are a shared buffer, valid until the next call.
 */
export function countedPairs(terms: readonly string[], names: Names): { pairs: Int32Array; n: number } {
  if (terms.length * 2 > build.pairs.length) build.pairs = new Int32Array(terms.length * 2);
  const stamp = ++buildStamp;
  let n = 0;
  for (const term of terms) {
    const id = names.intern(term);
    if (id >= build.seenAt.length) {
      // Grown keeping what this document has counted so far: a term seen before the growth and
      // again after it stays one pair (else its count depended on when this process's buffer grew).
      const size = Math.max(id + 1, build.seenAt.length * 2);
      const seenAt = new Int32Array(size).fill(-1);
      const stamps = new Int32Array(size);
      seenAt.set(build.seenAt);
      stamps.set(build.stamp);
      build.seenAt = seenAt;
      build.stamp = stamps;
    }
    if (build.stamp[id] === stamp) {
      const at = build.seenAt[id] as number;
      build.pairs[at + 1] = (build.pairs[at + 1] as number) + 1;
      continue;
    }
    build.stamp[id] = stamp;
    build.seenAt[id] = 2 * n;
    build.pairs[2 * n] = id;
    build.pairs[2 * n + 1] = 1;
    n += 1;
  }
  return { pairs: build.pairs, n };
}

/** One document as the table stores it: distinct terms as [termId, tf] pairs (`pairs[0..2n)`), its length and where it belongs. */
export interface DocRow {
  pairs: Int32Array;
  n: number;
  length: number;
  group: number;
  order: number;
  /** Name numbers, −1 for none. */
  label: number;
  speaker: number;
  asks: boolean;
}

/**
 * The documents of an index by slot (dense integers handed out in increasing order), as columns of
 * typed arrays: length, group, order, label, speaker, asks, and the offset of the document's
 * [termId, tf] pairs in one shared pool. A handful of arrays per index, however many documents it
 * holds: no object per document, nothing for the collector to trace. Capacity doubles as it fills,
 * or is reserved up front (`reserve`) when a build knows its size.
 */
export class DocTable {
  count = 0;
  lengths = new Int32Array(0);
  groups = new Int32Array(0);
  orders = new Float64Array(0);
  labels = new Int32Array(0);
  speakers = new Int32Array(0);
  asks = new Uint8Array(0);
  /** Slot s's pairs lie at pool[starts[s] .. starts[s + 1]). */
  starts = new Int32Array(1);
  pool = new Int32Array(0);
  /**
   * A restored table's pairs not read yet (see `restorePairs`): per restored slot its pairs' bytes,
   * each naming a term below `terms`; null once all are in the pool.
   */
  private restored: { items: LazyItems; terms: number } | null = null;

  /**
   * Leaves the pairs of the first slots in `items` (one item per slot: per pair its term × 2, plus
   * 1 when a frequency above 1 follows) until something reads them (`readPairs`): a query reads
   * the pairs of a few documents only, and a restore that read all of them spent most of its time
   * there. The pool is allocated unzeroed (`ofSize`), so its pages cost memory only once written.
   */
  restorePairs(items: LazyItems, terms: number): void {
    this.restored = items.done ? null : { items, terms };
  }

  /** Makes sure `slot`'s pairs are in the pool (a restored slot's are read from its bytes the first time). */
  readPairs(slot: number): void {
    const restored = this.restored;
    const reader = restored?.items.open(slot);
    if (!restored || !reader) return;
    const { pool } = this;
    for (let i = this.starts[slot] as number; i < (this.starts[slot + 1] as number); i += 2) {
      const word = reader.read();
      const term = Math.floor(word / 2);
      if (term >= restored.terms) throw new Error("recall index snapshot: term reference");
      pool[i] = term;
      pool[i + 1] = (word & 1) === 1 ? reader.read() : 1;
    }
    restored.items.close(slot, reader);
    if (restored.items.done) this.restored = null;
  }

  /** Where `slot`'s pairs lie in the pool, [from, to), and the pool (a restored slot's read from its bytes the first time). */
  pairsOf(slot: number): [number, number, Int32Array] {
    this.readPairs(slot);
    return [this.starts[slot] as number, this.starts[slot + 1] as number, this.pool];
  }

  /** Makes sure every slot's pairs are in the pool (before anything reads them all). */
  readAllPairs(): void {
    for (let slot = 0; this.restored && slot < this.count; slot++) this.readPairs(slot);
  }

  /**
   * A table of `count` documents holding `pairs` [termId, tf] pairs in all, every column zeroed (the
   * pool not: see below), with room for `spare` more (`reserve`) allocated with it: growing later
   * copies every column and the pool into new memory.
   */
  static ofSize(count: number, pairs: number, spare: Room = NO_ROOM): DocTable {
    const docs = new DocTable();
    const capacity = count + spare.documents;
    docs.count = count;
    docs.lengths = new Int32Array(capacity);
    docs.groups = new Int32Array(capacity);
    docs.orders = new Float64Array(capacity);
    docs.labels = new Int32Array(capacity);
    docs.speakers = new Int32Array(capacity);
    docs.asks = new Uint8Array(capacity);
    docs.starts = new Int32Array(capacity + 1);
    // Unzeroed: a pair is written (read from its bytes on first use, see `restorePairs`, or
    // appended) before anything reads it, and most of a restored pool is never read.
    docs.pool = unfilledInt32(2 * (pairs + spare.pairs));
    return docs;
  }

  /** Makes room for `room`'s documents and pairs more, without growing again. */
  reserve(room: Room): void {
    this.resize(this.count + room.documents, (this.starts[this.count] as number) + 2 * room.pairs);
  }

  append(row: DocRow): number {
    const slot = this.count;
    const end = this.starts[slot] as number;
    if (slot >= this.lengths.length || end + 2 * row.n > this.pool.length) {
      this.resize(Math.max(slot + 1, this.lengths.length * 2, 16), Math.max(end + 2 * row.n, this.pool.length * 2, 64));
    }
    this.pool.set(row.pairs.subarray(0, 2 * row.n), end);
    this.starts[slot + 1] = end + 2 * row.n;
    this.lengths[slot] = row.length;
    this.groups[slot] = row.group;
    this.orders[slot] = row.order;
    this.labels[slot] = row.label;
    this.speakers[slot] = row.speaker;
    this.asks[slot] = row.asks ? 1 : 0;
    this.count += 1;
    return slot;
  }

  /** Keeps the slots `keep` says (ascending), renumbered densely from 0; returns old slot → new slot (−1 when dropped). */
  compact(keep: (slot: number) => boolean): Int32Array {
    this.readAllPairs();
    const renumber = new Int32Array(this.count).fill(-1);
    let next = 0;
    let end = 0;
    for (let slot = 0; slot < this.count; slot++) {
      if (!keep(slot)) continue;
      const [from, to] = [this.starts[slot] as number, this.starts[slot + 1] as number];
      this.pool.copyWithin(end, from, to);
      this.starts[next] = end;
      end += to - from;
      this.lengths[next] = this.lengths[slot] as number;
      this.groups[next] = this.groups[slot] as number;
      this.orders[next] = this.orders[slot] as number;
      this.labels[next] = this.labels[slot] as number;
      this.speakers[next] = this.speakers[slot] as number;
      this.asks[next] = this.asks[slot] as number;
      renumber[slot] = next++;
    }
    this.starts[next] = end;
    this.count = next;
    return renumber;
  }

  /** The slot below `below` whose order is `order`, by binary search (slots below `below` in ascending order); −1 when none. */
  slotOfOrder(order: number, below: number): number {
    let lo = 0;
    let hi = below - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = this.orders[mid] as number;
      if (at === order) return mid;
      if (at < order) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Bytes held by the columns and the pool. */
  get bytes(): number {
    return this.lengths.length * 25 + this.starts.byteLength + this.pool.byteLength + (this.restored?.items.byteLength ?? 0);
  }

  private resize(docs: number, pairsLength: number): void {
    const grow = <A extends Int32Array | Float64Array | Uint8Array>(old: A, make: (n: number) => A, size: number): A => {
      if (old.length >= size) return old;
      const next = make(size);
      next.set(old);
      return next;
    };
    this.lengths = grow(this.lengths, (n) => new Int32Array(n), docs);
    this.groups = grow(this.groups, (n) => new Int32Array(n), docs);
    this.orders = grow(this.orders, (n) => new Float64Array(n), docs);
    this.labels = grow(this.labels, (n) => new Int32Array(n), docs);
    this.speakers = grow(this.speakers, (n) => new Int32Array(n), docs);
    this.asks = grow(this.asks, (n) => new Uint8Array(n), docs);
    this.starts = grow(this.starts, (n) => new Int32Array(n), docs + 1);
    this.pool = grow(this.pool, (n) => new Int32Array(n), pairsLength);
  }
}
