import fc from "fast-check";
import { MemoryGraphError } from "../../src/errors.js";
import { DEFAULT_RETENTION, applyEventRetention, type RetentionPolicy } from "../../src/memory/retention-policy.js";

const NOW = new Date("2025-06-01T00:00:00.000Z");
const DAY = 86_400_000;
const daysAgo = (days: number): string => new Date(NOW.getTime() - days * DAY).toISOString();
const event = (id: string, days: number) => Object.freeze({ id, createdAt: daysAgo(days) });

describe("applyEventRetention", () => {
  it("defaults to 1000 events for 365 days", () => {
    expect(DEFAULT_RETENTION).toEqual({ maxEventsPerUser: 1000, eventRetentionDays: 365 });
  });

  it.each<{ name: string; events: { id: string; createdAt: string }[]; policy: RetentionPolicy; kept: string[] }>([
    { name: "drops events older than the cutoff", events: [event("a", 400), event("b", 10), event("c", 366)], policy: DEFAULT_RETENTION, kept: ["b"] },
    { name: "keeps an event exactly at the cutoff", events: [event("a", 30), event("b", 31)], policy: { maxEventsPerUser: 10, eventRetentionDays: 30 }, kept: ["a"] },
    {
      name: "keeps the newest N in input order",
      events: [event("old", 5), event("newest", 1), event("mid", 3), event("oldest", 9)],
      policy: { maxEventsPerUser: 2, eventRetentionDays: 365 },
      kept: ["newest", "mid"],
    },
    { name: "keeps nothing when the max is 0", events: [event("a", 1)], policy: { maxEventsPerUser: 0, eventRetentionDays: 365 }, kept: [] },
    {
      name: "breaks ties by input position (later is newer)",
      events: [event("first", 2), event("second", 2), event("third", 2)],
      policy: { maxEventsPerUser: 2, eventRetentionDays: 365 },
      kept: ["second", "third"],
    },
    { name: "handles no events", events: [], policy: DEFAULT_RETENTION, kept: [] },
  ])("$name", ({ events, policy, kept }) => {
    const input = Object.freeze([...events]);
    const result = applyEventRetention(input, policy, NOW);
    expect(result.kept.map((e) => e.id)).toEqual(kept);
    expect(result.dropped.map((e) => e.id)).toEqual(events.filter((e) => !kept.includes(e.id)).map((e) => e.id));
  });

  it("throws INVALID_EVENT_DATE naming the event whose createdAt does not parse", () => {
    const events = [event("ok", 1), { id: "evt-7", createdAt: "yesterday-ish" }];
    expect(() => applyEventRetention(events, DEFAULT_RETENTION, NOW)).toThrow(MemoryGraphError);
    expect(() => applyEventRetention(events, DEFAULT_RETENTION, NOW)).toThrow(/evt-7/);
    expect(() => applyEventRetention(events, DEFAULT_RETENTION, NOW)).toThrow(
      expect.objectContaining({ code: "INVALID_EVENT_DATE", field: "events[1].createdAt" }) as unknown,
    );
  });

  it.each([
    { policy: { maxEventsPerUser: -1, eventRetentionDays: 1 }, now: NOW },
    { policy: { maxEventsPerUser: 1, eventRetentionDays: Number.NaN }, now: NOW },
    { policy: DEFAULT_RETENTION, now: new Date("nope") },
  ])("rejects a bad policy or clock with INVALID_RETENTION_POLICY (%#)", ({ policy, now }) => {
    expect(() => applyEventRetention([], policy, now)).toThrow(expect.objectContaining({ code: "INVALID_RETENTION_POLICY" }) as unknown);
  });

  it("partitions the input, bounds kept, keeps nothing stale, and keeps the newest (property)", () => {
    const eventsArb = fc.array(
      fc.record({ id: fc.uuid(), days: fc.integer({ min: 0, max: 800 }) }).map(({ id, days }) => ({ id, createdAt: daysAgo(days) })),
      { maxLength: 40 },
    );
    const policyArb = fc.record({ maxEventsPerUser: fc.integer({ min: 0, max: 30 }), eventRetentionDays: fc.integer({ min: 0, max: 500 }) });
    fc.assert(
      fc.property(eventsArb, policyArb, (events, policy) => {
        const input = Object.freeze([...events]);
        const { kept, dropped } = applyEventRetention(input, policy, NOW);
        const cutoff = NOW.getTime() - policy.eventRetentionDays * DAY;

        expect(kept.length).toBeLessThanOrEqual(policy.maxEventsPerUser);
        expect(kept.length + dropped.length).toBe(input.length);
        expect(new Set([...kept, ...dropped])).toEqual(new Set(input));
        expect(input.filter((e) => kept.includes(e))).toEqual(kept);
        expect(input.filter((e) => dropped.includes(e))).toEqual(dropped);
        for (const e of kept) expect(Date.parse(e.createdAt)).toBeGreaterThanOrEqual(cutoff);
        // Anything fresh that was dropped is no newer than everything kept.
        const oldestKept = Math.min(...kept.map((e) => Date.parse(e.createdAt)));
        for (const e of dropped) {
          const time = Date.parse(e.createdAt);
          if (time >= cutoff) expect(time).toBeLessThanOrEqual(oldestKept);
        }
      }),
      { numRuns: 200 },
    );
  });
});
