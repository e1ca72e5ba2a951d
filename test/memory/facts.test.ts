import { describe, expect, it } from "vitest";
import { currentFacts, restoreSuperseded, upsertFacts } from "../../src/memory/facts.js";
import type { FactRecord } from "../../src/memory/records.js";

/** The fact records of `steps` written in order, each step one message of a session at minute `i`. */
function history(steps: { session: string; key?: string; value: string }[]): FactRecord[] {
  let facts: FactRecord[] = [];
  steps.forEach((step, i) => {
    const now = new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();
    const writes = upsertFacts(facts, [{ key: step.key ?? "email", value: step.value }], { messageId: `m${i}`, sessionId: step.session, now });
    facts = [...facts.filter((fact) => !writes.some((w) => w.id === fact.id)), ...writes];
  });
  return facts;
}

/** What is current per key, and each record's validity, after forgetting `session`. */
function afterForgetting(facts: readonly FactRecord[], session: string) {
  const removed = new Set(facts.filter((fact) => fact.sessionId === session).map((fact) => fact.id));
  const rewrites = new Map(restoreSuperseded(Object.freeze(facts.map((f) => Object.freeze({ ...f }))), removed).map((f) => [f.id, f]));
  const left = facts.filter((fact) => !removed.has(fact.id)).map((fact) => rewrites.get(fact.id) ?? fact);
  return left.map((fact) => `${fact.value} ${fact.validFrom.slice(14, 16)}–${fact.validTo?.slice(14, 16) ?? "now"}`);
}

describe("restoreSuperseded", () => {
  it.each([
    { name: "the superseded value is current again", steps: [{ session: "s0", value: "a" }, { session: "s1", value: "b" }], forget: "s1", left: ["a 00–now"] },
    {
      name: "a later value of another session still closes it, from its own start",
      steps: [{ session: "s0", value: "a" }, { session: "s1", value: "b" }, { session: "s2", value: "c" }],
      forget: "s1",
      left: ["a 00–02", "c 02–now"],
    },
    {
      name: "a chain within the forgotten session goes whole",
      steps: [{ session: "s0", value: "a" }, { session: "s1", value: "b" }, { session: "s1", value: "c" }],
      forget: "s1",
      left: ["a 00–now"],
    },
    {
      name: "forgetting the first session leaves later values as they were",
      steps: [{ session: "s0", value: "a" }, { session: "s1", value: "b" }],
      forget: "s0",
      left: ["b 01–now"],
    },
    {
      name: "other keys are untouched",
      steps: [{ session: "s0", key: "name", value: "n" }, { session: "s0", value: "a" }, { session: "s1", value: "b" }],
      forget: "s1",
      left: ["n 00–now", "a 01–now"],
    },
    { name: "nothing to forget, nothing rewritten", steps: [{ session: "s0", value: "a" }, { session: "s0", value: "b" }], forget: "s9", left: ["a 00–01", "b 01–now"] },
  ])("$name", ({ steps, forget, left }) => {
    expect(afterForgetting(history(steps), forget)).toEqual(left);
  });

  it("rewrites only the records whose validity changes", () => {
    const facts = history([{ session: "s0", value: "a" }, { session: "s1", value: "b" }, { session: "s0", value: "c" }]);
    const removed = new Set(facts.filter((fact) => fact.sessionId === "s1").map((fact) => fact.id));
    expect(restoreSuperseded(facts, removed).map((fact) => [fact.value, fact.validTo])).toEqual([["a", facts.find((f) => f.value === "c")!.validFrom]]);
  });
});

describe("facts that expire", () => {
  const source = (messageId: string, now: string) => ({ messageId, sessionId: "s1", now });
  const home = upsertFacts([], [{ key: "location.city", value: "Chiang Mai" }], source("m1", "2026-11-01T00:00:00.000Z"));
  const trip = upsertFacts(home, [{ key: "location.city", value: "Bangkok", expiresAt: "2026-11-29T23:59:59.999Z" }], source("m2", "2026-11-25T00:00:00.000Z"));
  const all = Object.freeze([...trip, ...upsertFacts([], [{ key: "name", value: "Anong" }], source("m0", "2026-10-01T00:00:00.000Z"))]);

  it("keeps the expiry on the record and closes the fact it supersedes", () => {
    expect(trip.find((f) => f.value === "Bangkok")).toMatchObject({ expiresAt: "2026-11-29T23:59:59.999Z", validTo: null });
    expect(trip.find((f) => f.value === "Chiang Mai")?.validTo).toBe("2026-11-25T00:00:00.000Z");
  });

  it.each([
    { at: "2026-11-27T12:00:00.000Z", city: "Bangkok" },
    { at: "2026-11-30T00:00:00.000Z", city: "Chiang Mai" },
  ])("at $at the current city is $city (an expired fact gives way to the one it superseded)", ({ at, city }) => {
    const current = currentFacts(all, new Date(at));
    expect(current.filter((f) => f.key === "location.city").map((f) => f.value)).toEqual([city]);
    expect(current.map((f) => f.key)).toContain("name");
  });

  it("an expired fact that superseded nothing leaves no current value", () => {
    const only = upsertFacts([], [{ key: "phone", value: "555-0100", expiresAt: "2026-11-28T23:59:59.999Z" }], source("m3", "2026-11-25T00:00:00.000Z"));
    expect(currentFacts(only, new Date("2026-11-29T00:00:00.000Z"))).toEqual([]);
    expect(currentFacts(only)).toHaveLength(1);
  });
});
