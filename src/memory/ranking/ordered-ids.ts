/**
 * Ids kept sorted by a numeric order key (ties in insertion order). Appending a larger key, the
 * usual case, is O(1); finding an id by its key is a binary search.
 */
export class OrderedIds {
  private readonly orders: number[] = [];
  private readonly ids: string[] = [];

  get size(): number {
    return this.ids.length;
  }

  insert(id: string, order: number): void {
    const at = this.upperBound(order);
    if (at === this.ids.length) {
      this.orders.push(order);
      this.ids.push(id);
      return;
    }
    this.orders.splice(at, 0, order);
    this.ids.splice(at, 0, id);
  }

  delete(id: string, order: number): void {
    const at = this.indexOf(id, order);
    if (at < 0) return;
    this.orders.splice(at, 1);
    this.ids.splice(at, 1);
  }

  /** The `n` ids of highest order, highest first. */
  last(n: number): string[] {
    return this.ids.slice(Math.max(0, this.ids.length - n)).reverse();
  }

  /** The ids just before and just after `id` (either may be missing); [] when `id` is absent. */
  around(id: string, order: number): string[] {
    const at = this.indexOf(id, order);
    if (at < 0) return [];
    const out: string[] = [];
    if (at > 0) out.push(this.ids[at - 1] as string);
    if (at + 1 < this.ids.length) out.push(this.ids[at + 1] as string);
    return out;
  }

  private indexOf(id: string, order: number): number {
    for (let at = this.lowerBound(order); at < this.ids.length && this.orders[at] === order; at++) {
      if (this.ids[at] === id) return at;
    }
    return this.ids.indexOf(id);
  }

  /** The first position whose order is ≥ `order`. */
  private lowerBound(order: number): number {
    let lo = 0;
    let hi = this.orders.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.orders[mid] as number) < order) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The first position whose order is > `order`. */
  private upperBound(order: number): number {
    const n = this.orders.length;
    if (n === 0 || (this.orders[n - 1] as number) <= order) return n;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.orders[mid] as number) <= order) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
