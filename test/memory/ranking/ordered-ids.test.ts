import { GroupedSlots } from "../../../src/memory/ranking/ordered-ids.js";

/** Seeded operations on slots with orders (ascending for the first `count`, as a restore has them). */
function scenario(seed: number) {
  let a = seed;
  const random = (n: number) => (a = (a * 1103515245 + 12345) % 2147483648) % n;
  const count = 200;
  const groups = 7;
  const orders: number[] = Array.from({ length: count }, (_, slot) => slot * 10);
  const groupOf: number[] = Array.from({ length: count }, () => random(groups));
  return { random, count, groups, orders, groupOf };
}

/** What a GroupedSlots tells of every slot and group: each group's order as `around`/`next` see it, and the newest. */
function view(slots: GroupedSlots, orders: readonly number[], groupOf: readonly number[], dead: ReadonlySet<number>) {
  const live = orders.map((_, slot) => slot).filter((slot) => !dead.has(slot));
  return {
    around: live.map((slot) => slots.around(slot, groupOf[slot] as number)),
    next: live.map((slot) => slots.next(slot, groupOf[slot] as number)),
    newest: slots.newest(25),
    all: slots.newest(orders.length),
  };
}

describe("GroupedSlots filled from a restore (groups packed, all slots implicit)", () => {
  it.each([1, 2, 3])("answers as one built by inserts, through appends, inserts between, rewrites, deletes and a renumbering (seed %i)", (seed) => {
    const { random, count, groups, orders, groupOf } = scenario(seed);
    const orderOf = (slot: number) => orders[slot] as number;
    const [filled, inserted] = [new GroupedSlots(orderOf), new GroupedSlots(orderOf)];
    filled.fill(count, groups + 3, (slot) => groupOf[slot] as number);
    for (let slot = 0; slot < count; slot++) inserted.insert(slot, groupOf[slot] as number);
    const dead = new Set<number>();
    expect(view(filled, orders, groupOf, dead)).toEqual(view(inserted, orders, groupOf, dead));
    for (let step = 0; step < 120; step++) {
      const kind = random(4);
      if (kind === 0 || kind === 1) {
        // A new slot: appended (a newer order) or between (an older one), in a group old or new.
        const slot = orders.length;
        orders.push(kind === 0 ? orders.length * 10 : random(count) * 10 + 5);
        groupOf.push(random(groups + 2));
        for (const slots of [filled, inserted]) slots.insert(slot, groupOf[slot] as number);
      } else {
        const slot = random(orders.length);
        if (dead.has(slot)) continue;
        if (kind === 2) {
          for (const slots of [filled, inserted]) slots.delete(slot, groupOf[slot] as number);
          dead.add(slot);
        } else {
          // Rewritten in place: a new slot of the same order and group.
          const fresh = orders.length;
          orders.push(orders[slot] as number);
          groupOf.push(groupOf[slot] as number);
          for (const slots of [filled, inserted]) slots.replace(slot, fresh, groupOf[slot] as number);
          dead.add(slot);
        }
      }
      expect(view(filled, orders, groupOf, dead)).toEqual(view(inserted, orders, groupOf, dead));
    }
    // Compacted: the live slots renumbered in order.
    const renumber = new Int32Array(orders.length).fill(-1);
    const kept = orders.map((_, slot) => slot).filter((slot) => !dead.has(slot));
    kept.forEach((slot, i) => (renumber[slot] = i));
    for (const slots of [filled, inserted]) slots.renumber(renumber);
    const [newOrders, newGroups] = [kept.map((slot) => orders[slot] as number), kept.map((slot) => groupOf[slot] as number)];
    orders.splice(0, orders.length, ...newOrders);
    groupOf.splice(0, groupOf.length, ...newGroups);
    expect(view(filled, orders, groupOf, new Set())).toEqual(view(inserted, orders, groupOf, new Set()));
  });

  it("makes a group's list only when the group is first used", () => {
    const orders = Array.from({ length: 10 }, (_, slot) => slot);
    const slots = new GroupedSlots((slot) => orders[slot] as number);
    slots.fill(10, 3, (slot) => slot % 3);
    const lists = () => (slots as unknown as { groups: unknown[] }).groups.filter((list) => list !== undefined).length;
    expect([slots.newest(3), lists()]).toEqual([[9, 8, 7], 0]);
    expect([slots.around(4, 1), slots.next(4, 1), lists()]).toEqual([[1, 7], 7, 1]);
    // Renumbered with groups never used: slot 0 deleted, the rest one down.
    const other = new GroupedSlots((slot) => orders[slot] as number);
    other.fill(10, 3, (slot) => slot % 3);
    other.delete(0, 0);
    other.renumber(Int32Array.from({ length: 10 }, (_, slot) => slot - 1));
    orders.shift();
    expect([other.around(3, 1), other.around(4, 2), other.around(2, 0), other.newest(2)]).toEqual([[0, 6], [1, 7], [5], [8, 7]]);
  });
});
