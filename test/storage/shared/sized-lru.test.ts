import { describe, expect, it } from "vitest";
import { SizedLru, validateCacheBounds, type RssProbe } from "../../../src/storage/shared/sized-lru.js";

const MB = 1024 * 1024;

/** A probe whose RSS and clock the test sets. */
function fakeProbe(rss: number): RssProbe & { rssNow: number; time: number } {
  const probe = { rssNow: rss, time: 0, rss: () => probe.rssNow, now: () => probe.time };
  return probe;
}

function filled(probe: RssProbe, count: number, maxRss = 400 * MB): SizedLru<number> {
  const lru = new SizedLru<number>({ maxEntries: 1000, maxBytes: 100 * MB, maxRss }, (bytes) => bytes, probe);
  for (let i = 0; i < count; i++) lru.set(`k${i}`, MB);
  return lru;
}

describe("SizedLru", () => {
  it("keeps the values within maxBytes, least recently used evicted first", () => {
    const lru = new SizedLru<number>({ maxEntries: 10, maxBytes: 3 }, (n) => n, fakeProbe(0));
    lru.set("a", 1);
    lru.set("b", 1);
    lru.set("c", 1);
    lru.get("a");
    lru.set("d", 1);
    expect([...lru.entries()].map(([key]) => key)).toEqual(["c", "a", "d"]);
  });

  it("under maxRss keeps every value its byte bound allows", () => {
    const probe = fakeProbe(300 * MB);
    const lru = filled(probe, 40);
    expect(lru.size).toBe(40);
    expect(lru.byteBudget).toBe(100 * MB);
  });

  it("past maxRss shrinks to three quarters of what it holds, least recently used first, keeping the newest", () => {
    const probe = fakeProbe(300 * MB);
    const lru = filled(probe, 40);
    probe.rssNow = 450 * MB;
    probe.time = 10_000;
    lru.set("new", MB);
    expect(lru.size).toBe(30);
    expect(lru.byteBudget).toBe(Math.floor(41 * MB * 0.75));
    expect(lru.has("new")).toBe(true);
    expect(lru.has("k0")).toBe(false);
    expect(lru.has("k39")).toBe(true);
  });

  it("shrinks at most once per 5 s while RSS stays high, and grows back once RSS is well under", () => {
    const probe = fakeProbe(450 * MB);
    const lru = filled(probe, 40);
    // The first set found RSS high: one shrink, then no other within 5 s.
    expect(lru.byteBudget).toBe(Math.floor(MB * 0.75));
    probe.rssNow = 300 * MB;
    probe.time = 1000;
    lru.set("x", MB);
    expect(lru.byteBudget).toBe(Math.floor(MB * 0.75));
    probe.time = 6000;
    lru.set("y", MB);
    expect(lru.byteBudget).toBe(Math.ceil(Math.floor(MB * 0.75) * 1.1) + 1);
    probe.time = 7000;
    lru.set("z", MB);
    expect(lru.byteBudget).toBe(Math.ceil(Math.floor(MB * 0.75) * 1.1) + 1);
  });

  it("never grows back past maxBytes, and maxRss 0 reads no RSS", () => {
    let reads = 0;
    const probe: RssProbe = { rss: () => (reads++, 10_000 * MB), now: () => 0 };
    const lru = filled(probe, 120, 0);
    expect(reads).toBe(0);
    expect(lru.size).toBe(100);
    expect(lru.byteBudget).toBe(100 * MB);
  });

  it("measures only the value it sets: the sum is kept, not made again over every value", () => {
    const measured: string[] = [];
    const lru = new SizedLru<{ name: string; size: number }>({ maxEntries: 1000, maxBytes: 100 * MB }, (value) => (measured.push(value.name), value.size), fakeProbe(0));
    for (let i = 0; i < 50; i++) lru.set(`k${i}`, { name: `v${i}`, size: MB });
    expect(measured).toEqual(Array.from({ length: 50 }, (_, i) => `v${i}`));
    expect(lru.bytes).toBe(50 * MB);
    lru.delete("k3");
    lru.set("k4", { name: "w4", size: 2 * MB });
    expect(lru.bytes).toBe(50 * MB);
  });

  it("counts a value changed in place at its new size once got or remeasured, and evicts by it", () => {
    const sizes = { a: { size: 1 }, b: { size: 1 }, c: { size: 1 } };
    const lru = new SizedLru<{ size: number }>({ maxEntries: 10, maxBytes: 6 }, (value) => value.size, fakeProbe(0));
    lru.set("a", sizes.a);
    lru.set("b", sizes.b);
    lru.set("c", sizes.c);
    sizes.a.size = 3;
    expect(lru.bytes).toBe(3);
    lru.remeasure("a");
    expect(lru.bytes).toBe(5);
    sizes.b.size = 2;
    lru.get("b");
    expect(lru.bytes).toBe(6);
    // a (3) is the least recently used: adding d (1) passes 6 and evicts it, not b or c.
    lru.set("d", { size: 1 });
    expect([...lru.entries()].map(([key]) => key)).toEqual(["c", "b", "d"]);
    expect(lru.bytes).toBe(4);
  });

  it.each([{ maxCachedBytes: -1 }, { maxRss: 1.5 }, { maxCachedBytes: Number.NaN }])("refuses bounds %o", (bounds) => {
    expect(() => validateCacheBounds("SqliteStore", bounds)).toThrow(/SqliteStore: indexCache\.\w+ must be an integer ≥ 0/);
  });
});
