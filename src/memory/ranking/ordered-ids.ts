/**
 * A recall index's slots kept sorted by their numeric order (read through `orderOf`, ties in
 * insertion order). Appending a larger order, the usual case, is O(1); finding a slot is a binary
 * search on its order. May start as the slots 0 to n − 1 in that order without holding them
 * (`identity`: a restored index's 100,000 slots were an array of 800 KB written on its restore),
 * made into an array only when something other than an append changes them.
 */
export class OrderedSlots {
  private slots: number[] = [];
  /** The slots 0 to `implicit` − 1 come first, in that order, and are not in `slots`. */
  private implicit = 0;

  constructor(private readonly orderOf: (slot: number) => number) {}

  /** Slots 0 to `count` − 1, whose orders ascend with them (ties in slot order). */
  static identity(orderOf: (slot: number) => number, count: number): OrderedSlots {
    const ordered = new OrderedSlots(orderOf);
    ordered.implicit = count;
    return ordered;
  }

  /** Slots in order, as given (ascending orders, ties in insertion order). */
  static of(orderOf: (slot: number) => number, slots: number[]): OrderedSlots {
    const ordered = new OrderedSlots(orderOf);
    ordered.slots = slots;
    return ordered;
  }

  get size(): number {
    return this.implicit + this.slots.length;
  }

  insert(slot: number): void {
    const at = this.upperBound(this.orderOf(slot));
    if (at === this.size) this.slots.push(slot);
    else this.held().splice(at, 0, slot);
  }

  delete(slot: number): void {
    const at = this.indexOf(slot);
    if (at >= 0) this.held().splice(at, 1);
  }

  /** Puts `slot` where `old` was (a document rewritten in place: same order, new slot). */
  replace(old: number, slot: number): void {
    const at = this.indexOf(old);
    if (at >= 0) this.held()[at] = slot;
  }

  /** The `n` slots of highest order, highest first. */
  last(n: number): number[] {
    const out: number[] = [];
    for (let at = this.size - 1; at >= 0 && out.length < n; at--) out.push(this.slotAt(at));
    return out;
  }

  /** The slots just before and just after `slot` (either may be missing); [] when `slot` is absent. */
  around(slot: number): number[] {
    const at = this.indexOf(slot);
    if (at < 0) return [];
    const out: number[] = [];
    if (at > 0) out.push(this.slotAt(at - 1));
    if (at + 1 < this.size) out.push(this.slotAt(at + 1));
    return out;
  }

  /** The slot after `slot`, or undefined when it is the last or absent. */
  next(slot: number): number | undefined {
    const at = this.indexOf(slot);
    return at < 0 || at + 1 >= this.size ? undefined : this.slotAt(at + 1);
  }

  /** Renumbers every slot through `renumber` (old → new, increasing where kept, as `DocTable.compact` gives). */
  renumber(renumber: Int32Array): void {
    this.slots = this.held().map((slot) => renumber[slot] as number);
  }

  /** The slot at position `at`. */
  private slotAt(at: number): number {
    return at < this.implicit ? at : (this.slots[at - this.implicit] as number);
  }

  /** The slots as one array, the implicit ones written out first if any (to be changed in place). */
  private held(): number[] {
    if (this.implicit > 0) {
      const all = new Array<number>(this.size);
      for (let at = 0; at < all.length; at++) all[at] = this.slotAt(at);
      [this.slots, this.implicit] = [all, 0];
    }
    return this.slots;
  }

  private indexOf(slot: number): number {
    const order = this.orderOf(slot);
    for (let at = this.lowerBound(order); at < this.size && this.orderOf(this.slotAt(at)) === order; at++) {
      if (this.slotAt(at) === slot) return at;
    }
    for (let at = 0; at < this.size; at++) if (this.slotAt(at) === slot) return at;
    return -1;
  }

  /** The first position whose order is ≥ `order`. */
  private lowerBound(order: number): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.orderOf(this.slotAt(mid)) < order) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The first position whose order is > `order`. */
  private upperBound(order: number): number {
    const n = this.size;
    if (n === 0 || this.orderOf(this.slotAt(n - 1)) <= order) return n;
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.orderOf(this.slotAt(mid)) <= order) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/**
 * A recall index's slots in groups (a conversation's namespace, by its name number), each group
 * ordered by the slots' order, and all of them by it too. Slots, not ids: no string is held or
 * hashed. A restored index fills it in one pass over its documents (`fill`) into two typed arrays,
 * each group's slots made into its list when the group is first used (a query uses the groups of
 * its hits: a few of a large user's thousands).
 */
export class GroupedSlots {
  /** Per group its list once used (null: used, now empty); undefined: none, or still in `packed`. */
  private groups: (OrderedSlots | null | undefined)[] = [];
  /** The slots of `fill` by group: group g's are `slots[starts[g], starts[g + 1])`, ascending. */
  private packed: { starts: Int32Array; slots: Int32Array } | null = null;
  private all: OrderedSlots;

  constructor(private readonly orderOf: (slot: number) => number) {
    this.all = new OrderedSlots(orderOf);
  }

  /**
   * Starts over from `count` slots already sorted by order (ties in slot order), slot `s` in group
   * `groupOf(s)` (below `groupCount`): what `insert` of each in turn gives, in one pass.
   */
  fill(count: number, groupCount: number, groupOf: (slot: number) => number): void {
    const starts = new Int32Array(groupCount + 1);
    for (let slot = 0; slot < count; slot++) {
      const at = groupOf(slot) + 1;
      starts[at] = (starts[at] as number) + 1;
    }
    for (let group = 0; group < groupCount; group++) starts[group + 1] = (starts[group + 1] as number) + (starts[group] as number);
    const slots = new Int32Array(count);
    const next = starts.slice(0, groupCount);
    for (let slot = 0; slot < count; slot++) {
      const group = groupOf(slot);
      const at = next[group] as number;
      slots[at] = slot;
      next[group] = at + 1;
    }
    this.packed = { starts, slots };
    this.groups = [];
    this.all = OrderedSlots.identity(this.orderOf, count);
  }

  insert(slot: number, group: number): void {
    this.listOf(group).insert(slot);
    this.all.insert(slot);
  }

  delete(slot: number, group: number): void {
    const list = this.used(group);
    list?.delete(slot);
    if (list?.size === 0) this.groups[group] = null;
    this.all.delete(slot);
  }

  /** Puts `slot` where `old` was, in `group` and over all (a rewrite keeping its group and order). */
  replace(old: number, slot: number, group: number): void {
    this.used(group)?.replace(old, slot);
    this.all.replace(old, slot);
  }

  /** The slots just before and after `slot` in its group. */
  around(slot: number, group: number): number[] {
    return this.used(group)?.around(slot) ?? [];
  }

  /** The slot after `slot` in its group, if any. */
  next(slot: number, group: number): number | undefined {
    return this.used(group)?.next(slot);
  }

  /** The `n` slots of highest order over all groups, highest first. */
  newest(n: number): number[] {
    return this.all.last(n);
  }

  /** Renumbers every slot (see `OrderedSlots.renumber`). */
  renumber(renumber: Int32Array): void {
    const groups = this.packed ? this.packed.starts.length - 1 : 0;
    for (let group = 0; group < groups; group++) this.used(group);
    this.packed = null;
    for (const list of this.groups) list?.renumber(renumber);
    this.all.renumber(renumber);
  }

  /** Group `group`'s list, made from `packed` on first use; null or undefined when it has none. */
  private used(group: number): OrderedSlots | null | undefined {
    const list = this.groups[group];
    if (list !== undefined || !this.packed || group + 1 >= this.packed.starts.length) return list;
    const { starts, slots } = this.packed;
    const [from, to] = [starts[group] as number, starts[group + 1] as number];
    const made = from === to ? null : OrderedSlots.of(this.orderOf, Array.from(slots.subarray(from, to)));
    this.groups[group] = made;
    return made;
  }

  private listOf(group: number): OrderedSlots {
    let list = this.used(group);
    if (!list) this.groups[group] = list = new OrderedSlots(this.orderOf);
    return list;
  }
}
