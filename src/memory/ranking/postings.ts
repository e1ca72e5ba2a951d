/**
 * A growable posting list of one term: the slots (dense document numbers) holding it, ascending
 * because slots are handed out in increasing order, each with the term's frequency there (capped
 * at 65,535). `df` counts the live documents in it; entries of removed documents stay until the
 * owner compacts (`keep`). `maxTf` only ever grows, so it bounds every live frequency.
 */
export class Postings {
  slots = new Int32Array(4);
  tfs = new Uint16Array(4);
  length = 0;
  df = 0;
  maxTf = 0;

  push(slot: number, tf: number): void {
    if (this.length === this.slots.length) {
      const slots = new Int32Array(this.slots.length * 2);
      slots.set(this.slots);
      this.slots = slots;
      const tfs = new Uint16Array(this.tfs.length * 2);
      tfs.set(this.tfs);
      this.tfs = tfs;
    }
    const capped = Math.min(tf, 0xffff);
    this.slots[this.length] = slot;
    this.tfs[this.length] = capped;
    this.length += 1;
    this.df += 1;
    if (capped > this.maxTf) this.maxTf = capped;
  }

  /** Keeps only entries whose slot maps to a new slot ≥ 0 in `renumber` (monotonic, so order holds). */
  keep(renumber: Int32Array): void {
    let kept = 0;
    for (let i = 0; i < this.length; i++) {
      const slot = renumber[this.slots[i] as number] as number;
      if (slot < 0) continue;
      this.slots[kept] = slot;
      this.tfs[kept] = this.tfs[i] as number;
      kept += 1;
    }
    this.length = kept;
  }

  /** The position of `slot` in the list, or −1. */
  find(slot: number): number {
    let lo = 0;
    let hi = this.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = this.slots[mid] as number;
      if (at === slot) return mid;
      if (at < slot) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
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
