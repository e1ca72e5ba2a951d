/**
 * A recall index's slots kept sorted by their numeric order (read through `orderOf`, ties in
 * insertion order). Appending a larger order, the usual case, is O(1); finding a slot is a binary
 * search on its order.
 */
export class OrderedSlots {
  slots: number[] = [];

  constructor(private readonly orderOf: (slot: number) => number) {}

  get size(): number {
    return this.slots.length;
  }

  insert(slot: number): void {
    const at = this.upperBound(this.orderOf(slot));
    if (at === this.slots.length) this.slots.push(slot);
    else this.slots.splice(at, 0, slot);
  }

  delete(slot: number): void {
    const at = this.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
  }

  /** Puts `slot` where `old` was (a document rewritten in place: same order, new slot). */
  replace(old: number, slot: number): void {
    const at = this.indexOf(old);
    if (at >= 0) this.slots[at] = slot;
  }

  /** The `n` slots of highest order, highest first. */
  last(n: number): number[] {
    return this.slots.slice(Math.max(0, this.slots.length - n)).reverse();
  }

  /** The slots just before and just after `slot` (either may be missing); [] when `slot` is absent. */
  around(slot: number): number[] {
    const at = this.indexOf(slot);
    if (at < 0) return [];
    const out: number[] = [];
    if (at > 0) out.push(this.slots[at - 1] as number);
    if (at + 1 < this.slots.length) out.push(this.slots[at + 1] as number);
    return out;
  }

  /** The slot after `slot`, or undefined when it is the last or absent. */
  next(slot: number): number | undefined {
    const at = this.indexOf(slot);
    return at < 0 ? undefined : this.slots[at + 1];
  }

  /** Renumbers every slot through `renumber` (old → new, increasing where kept, as `DocTable.compact` gives). */
  renumber(renumber: Int32Array): void {
    this.slots = this.slots.map((slot) => renumber[slot] as number);
  }

  private indexOf(slot: number): number {
    const order = this.orderOf(slot);
    for (let at = this.lowerBound(order); at < this.slots.length && this.orderOf(this.slots[at] as number) === order; at++) {
      if (this.slots[at] === slot) return at;
    }
    return this.slots.indexOf(slot);
  }

  /** The first position whose order is ≥ `order`. */
  private lowerBound(order: number): number {
    let lo = 0;
    let hi = this.slots.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.orderOf(this.slots[mid] as number) < order) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The first position whose order is > `order`. */
  private upperBound(order: number): number {
    const n = this.slots.length;
    if (n === 0 || this.orderOf(this.slots[n - 1] as number) <= order) return n;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.orderOf(this.slots[mid] as number) <= order) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/**
 * A recall index's slots in groups (a conversation's namespace, by its name number), each group
 * ordered by the slots' order, and all of them by it too. Slots, not ids: no string is held or
 * hashed, and a restored index fills it in one pass over its documents (`fill`).
 */
export class GroupedSlots {
  private groups: (OrderedSlots | undefined)[] = [];
  private all: OrderedSlots;

  constructor(private readonly orderOf: (slot: number) => number) {
    this.all = new OrderedSlots(orderOf);
  }

  /**
   * Starts over from `count` slots already sorted by order (ties in slot order), slot `s` in group
   * `groupOf(s)`: what `insert` of each in turn gives, in one pass.
   */
  fill(count: number, groupOf: (slot: number) => number): void {
    this.groups = [];
    this.all = new OrderedSlots(this.orderOf);
    const all = new Array<number>(count);
    for (let slot = 0; slot < count; slot++) {
      all[slot] = slot;
      this.listOf(groupOf(slot)).slots.push(slot);
    }
    this.all.slots = all;
  }

  insert(slot: number, group: number): void {
    this.listOf(group).insert(slot);
    this.all.insert(slot);
  }

  delete(slot: number, group: number): void {
    const list = this.groups[group];
    list?.delete(slot);
    if (list?.size === 0) this.groups[group] = undefined;
    this.all.delete(slot);
  }

  /** Puts `slot` where `old` was, in `group` and over all (a rewrite keeping its group and order). */
  replace(old: number, slot: number, group: number): void {
    this.groups[group]?.replace(old, slot);
    this.all.replace(old, slot);
  }

  /** The slots just before and after `slot` in its group. */
  around(slot: number, group: number): number[] {
    return this.groups[group]?.around(slot) ?? [];
  }

  /** The slot after `slot` in its group, if any. */
  next(slot: number, group: number): number | undefined {
    return this.groups[group]?.next(slot);
  }

  /** The `n` slots of highest order over all groups, highest first. */
  newest(n: number): number[] {
    return this.all.last(n);
  }

  /** Renumbers every slot (see `OrderedSlots.renumber`). */
  renumber(renumber: Int32Array): void {
    for (const list of this.groups) list?.renumber(renumber);
    this.all.renumber(renumber);
  }

  private listOf(group: number): OrderedSlots {
    let list = this.groups[group];
    if (!list) this.groups[group] = list = new OrderedSlots(this.orderOf);
    return list;
  }
}
