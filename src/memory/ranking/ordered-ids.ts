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

  /** The id after `id` (placed at `order`), or undefined when it is the last or absent. */
  next(id: string, order: number): string | undefined {
    const at = this.indexOf(id, order);
    return at < 0 ? undefined : this.ids[at + 1];
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

/** Ids in groups, each group ordered by a numeric key, and all of them by that key too. */
export class GroupedIds {
  private readonly groups = new Map<string, OrderedIds>();
  private readonly all = new OrderedIds();

  insert(id: string, group: string, order: number): void {
    let ids = this.groups.get(group);
    if (!ids) this.groups.set(group, (ids = new OrderedIds()));
    ids.insert(id, order);
    this.all.insert(id, order);
  }

  delete(id: string, group: string, order: number): void {
    const ids = this.groups.get(group);
    ids?.delete(id, order);
    if (ids?.size === 0) this.groups.delete(group);
    this.all.delete(id, order);
  }

  /** The ids just before and after `id` in its group. */
  around(id: string, group: string, order: number): string[] {
    return this.groups.get(group)?.around(id, order) ?? [];
  }

  /** The id after `id` in its group, if any. */
  next(id: string, group: string, order: number): string | undefined {
    return this.groups.get(group)?.next(id, order);
  }

  /** The `n` ids of highest order over all groups, highest first. */
  newest(n: number): string[] {
    return this.all.last(n);
  }
}
