import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS } from "../../src/memory/limits.js";
import { contextLimitsFor, memoryPlanOf, memoryReason, MEMORY_SECTIONS } from "../../src/memory/memory-plan.js";

const recall = DEFAULT_LIMITS.recall;

describe("memoryPlanOf", () => {
  it("uses every section, the deployment's topK and remembers by default", () => {
    const plan = memoryPlanOf({}, recall);
    expect([...plan.sections]).toEqual([...MEMORY_SECTIONS]);
    expect(plan).toMatchObject({ useMemory: true, topK: recall.similarTopK, remember: true });
  });

  it("useMemory false includes no section, whatever memorySections says", () => {
    expect(memoryPlanOf({ useMemory: false, memorySections: ["facts"] }, recall).sections.size).toBe(0);
  });

  it("shows topK similar messages in the prompt", () => {
    expect(contextLimitsFor(memoryPlanOf({ topK: 20 }, recall), DEFAULT_LIMITS.context).similar.items).toBe(20);
    expect(contextLimitsFor(memoryPlanOf({}, recall), DEFAULT_LIMITS.context)).toBe(DEFAULT_LIMITS.context);
  });
});

describe("memoryReason", () => {
  const plan = memoryPlanOf({}, recall);
  it.each([
    { why: "off", reason: memoryReason(memoryPlanOf({ useMemory: false }, recall), "about_user", {}, false), expected: "No memory was used: the request turned it off (use_memory false)." },
    { why: "no sections", reason: memoryReason(memoryPlanOf({ memorySections: [] }, recall), "about_user", {}, false), expected: "No memory was used: the request named no memory sections." },
    { why: "used", reason: memoryReason(plan, "about_user", { facts: 2, similar: 1 }, true), expected: "Used 2 facts and 1 similar message: the message is about the user." },
    { why: "three kinds", reason: memoryReason(plan, "refers_back", { facts: 1, summaries: 2, recentTurns: 3 }, true), expected: "Used 1 fact, 2 summaries and 3 earlier turns: the message refers to what came before." },
    { why: "skipped", reason: memoryReason(plan, "standalone", { facts: 1 }, false), expected: "Used 1 fact: the message stands on its own; similar messages were not searched." },
    { why: "nothing", reason: memoryReason(plan, "refers_back", {}, true), expected: "Nothing relevant was in memory (the message refers to what came before)." },
  ])("$why", ({ reason, expected }) => {
    expect(reason).toBe(expected);
  });
});
