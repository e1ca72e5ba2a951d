import type { DocTable } from "./doc-table.js";
import { unfilledInt32, unfilledUint16, type LazyItems, type VarintReader } from "./varints.js";

/**
 * The posting lists of an index's terms, packed: for every term the slots holding it (ascending)
 * with the term's frequency there (capped at 65,535), one run per term, all runs in three typed
 * arrays (`offsets`, `slots`, `tfs`). Packing reads the documents' own [termId, tf] pairs from
 * their `DocTable`, so documents added after the last pack (slots from `packedSlots` on) are in no
 * run yet: a query reads those from the table. Per term, `df` counts the live documents holding it
 * and `maxTf` only grows, so it bounds every live frequency.
 */
export class PackedPostings {
  offsets = new Int32Array(1);
  slots = new Int32Array(0);
  tfs = new Uint16Array(0);
  /** Documents below this slot are packed (those alive at the time). */
  packedSlots = 0;
  df = new Int32Array(0);
  maxTf = new Uint16Array(0);
  /** A restored index's runs not read yet (see `restore`); a pack replaces every run. */
  private unread: LazyItems | null = null;

  /** Counts one more document holding `term` `tf` times. */
  count(term: number, tf: number): void {
    if (term >= this.df.length) {
      const size = Math.max(term + 1, this.df.length * 2, 64);
      const df = new Int32Array(size);
      df.set(this.df);
      this.df = df;
      const maxTf = new Uint16Array(size);
      maxTf.set(this.maxTf);
      this.maxTf = maxTf;
    }
    this.df[term] = (this.df[term] as number) + 1;
    const capped = Math.min(tf, 0xffff);
    if (capped > (this.maxTf[term] as number)) this.maxTf[term] = capped;
  }

  /** Counts one document fewer holding `term`. */
  uncount(term: number): void {
    this.df[term] = (this.df[term] as number) - 1;
  }

  /** Packs every document of `table` for which `live(slot)` holds, over term ids below `terms`. */
  pack(table: DocTable, terms: number, live: (slot: number) => boolean): void {
    table.readAllPairs();
    const { pool, starts, count } = table;
    const offsets = new Int32Array(terms + 1);
    for (let slot = 0; slot < count; slot++) {
      if (!live(slot)) continue;
      for (let i = starts[slot] as number; i < (starts[slot + 1] as number); i += 2) {
        const at = (pool[i] as number) + 1;
        offsets[at] = (offsets[at] as number) + 1;
      }
    }
    for (let t = 0; t < terms; t++) offsets[t + 1] = (offsets[t + 1] as number) + (offsets[t] as number);
    const total = offsets[terms] as number;
    const slots = new Int32Array(total);
    const tfs = new Uint16Array(total);
    const next = offsets.slice(0, terms);
    for (let slot = 0; slot < count; slot++) {
      if (!live(slot)) continue;
      for (let i = starts[slot] as number; i < (starts[slot + 1] as number); i += 2) {
        const term = pool[i] as number;
        const at = next[term] as number;
        next[term] = at + 1;
        slots[at] = slot;
        tfs[at] = Math.min(pool[i + 1] as number, 0xffff);
      }
    }
    this.offsets = offsets;
    this.slots = slots;
    this.tfs = tfs;
    this.packedSlots = count;
    this.unread = null;
  }

  /**
   * Takes the runs of a restored index's `documents` slots (every one live and packed), laid out by
   * `offsets` per term (each term's count is its run's length), with `maxTf` per term, each run
   * kept as bytes in `items` (one item per term: per slot the step from the previous one, from 0,
   * times 2, plus 1 when a frequency above 1 follows) until a query reads it (`fill`). The runs'
   * arrays are allocated unzeroed (`unfilledInt32`), so their pages cost memory only once written.
   */
  restore(offsets: Int32Array<ArrayBuffer>, maxTf: Uint16Array<ArrayBuffer>, documents: number, items: LazyItems): void {
    const terms = offsets.length - 1;
    const df = runLengths(offsets, maxTf.length);
    this.offsets = offsets;
    // Unzeroed: a run is filled from its bytes before anything reads it.
    this.slots = unfilledInt32(offsets[terms] as number);
    this.tfs = unfilledUint16(offsets[terms] as number);
    this.df = df;
    this.maxTf = maxTf;
    this.packedSlots = documents;
    this.unread = items.done ? null : items;
  }

  /** Makes sure the runs of `terms` are filled (a restored run is read from its bytes the first time; see `restore`). */
  fill(terms: Iterable<number>): void {
    const items = this.unread;
    if (!items) return;
    for (const term of terms) {
      const reader = items.open(term);
      if (reader) this.fillRun(term, reader, items);
    }
    if (items.done) this.unread = null;
  }

  /** Fills every run not filled yet. */
  fillAll(): void {
    this.fill(this.df.keys());
  }

  private fillRun(term: number, reader: VarintReader, items: LazyItems): void {
    const { offsets, slots, tfs } = this;
    let slot = 0;
    for (let at = offsets[term] as number; at < (offsets[term + 1] as number); at++) {
      const word = reader.read();
      slot += Math.floor(word / 2);
      if (slot >= this.packedSlots) throw new Error("recall index snapshot: a posting past the documents");
      slots[at] = slot;
      tfs[at] = (word & 1) === 1 ? Math.min(reader.read(), 0xffff) : 1;
    }
    items.close(term, reader);
  }

  /** Where `term`'s run starts and ends in `slots`/`tfs` (empty for a term newer than the last pack). */
  runOf(term: number): [number, number] {
    if (term + 1 >= this.offsets.length) return [0, 0];
    return [this.offsets[term] as number, this.offsets[term + 1] as number];
  }

  /** The position of `slot` in `term`'s run, or −1. */
  find(term: number, slot: number): number {
    const run = this.runOf(term);
    let lo = run[0];
    let hi = run[1] - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = this.slots[mid] as number;
      if (at === slot) return mid;
      if (at < slot) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Bytes held. */
  get bytes(): number {
    return this.offsets.byteLength + this.slots.byteLength + this.tfs.byteLength + this.df.byteLength + this.maxTf.byteLength + (this.unread?.byteLength ?? 0);
  }
}

/**
 * The `k`-th largest of the first `n` values (1-based `k`, 1 ≤ k ≤ n), by quickselect.
 * Reorders `values` in place (they are a scratch copy); linear time on average.
 */
export function kthLargest(values: Float64Array, n: number, k: number): number {
  let lo = 0;
  let hi = n - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = values[(lo + hi) >> 1] as number;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((values[i] as number) > pivot) i++;
      while ((values[j] as number) < pivot) j--;
      if (i <= j) {
        const t = values[i] as number;
        values[i] = values[j] as number;
        values[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return values[target] as number;
}

/**
 * Each run's length by `offsets` (its term's document frequency), zero for the terms after them up
 * to `size`. A function of its own: V8 compiles a long loop while it runs (on-stack replacement),
 * and code after the loop that had not run yet deoptimised the caller on most restores.
 */
function runLengths(offsets: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const terms = offsets.length - 1;
  const df = unfilledInt32(size);
  for (let term = 0; term < terms; term++) df[term] = (offsets[term + 1] as number) - (offsets[term] as number);
  return df.fill(0, terms);
}
