import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { InMemoryStore } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { assemblePrompt } from "../../src/memory/context.js";
import { DEFAULT_LIMITS } from "../../src/memory/limits.js";
import { namespaces } from "../../src/memory/namespaces.js";
import type { FactRecord, SummaryRecord } from "../../src/memory/records.js";
import { carriedOverFor, SEED_TEXT, seedWindow } from "../../src/memory/session-seed.js";
import { metaOf, textOf, withMeta } from "../../src/messages/message-meta.js";

const scope = { tenantId: "t", userId: "u", sessionId: "s2" };
const now = new Date("2026-11-20T10:00:00Z");

const fact = (key: string, value: string, id = `f-${key}`): FactRecord => ({ id, key, value, text: `${key}: ${value}`, validFrom: "2026-11-01T00:00:00Z", validTo: null, sourceMessageIds: [], sessionId: "s1" });
const summary = (id: string, text: string, stale?: true): SummaryRecord => ({ id, text, sessionId: "s1", fromMessageId: "a", toMessageId: "b", messageIds: ["a", "b"], method: "rules", createdAt: "2026-11-10T00:00:00Z", ...(stale ? { stale } : {}) });
const all = { summaries: true, facts: true };

async function storeWith(facts: FactRecord[], summaries: SummaryRecord[]): Promise<InMemoryStore> {
  const store = new InMemoryStore();
  for (const f of facts) await store.put(namespaces.facts(scope), f.id, { ...f }, false);
  for (const s of summaries) await store.put(namespaces.summaries(scope), s.id, { ...s }, false);
  return store;
}

describe("a session's seed", () => {
  it("holds references, never values, and is null with nothing to carry", async () => {
    const store = await storeWith([fact("name", "Anong"), fact("preference.drink", "tea")], [summary("sum1", "Talked about tea.")]);
    const seed = (await seedWindow(store, scope, now, "seed1"))!;
    expect(textOf(seed)).toBe(SEED_TEXT);
    expect(metaOf(seed)).toMatchObject({ pinned: true, carried: { summaryId: "sum1" } });
    expect(new Set(metaOf(seed).carried?.factKeys)).toEqual(new Set(["name", "preference.drink"]));
    expect(await seedWindow(new InMemoryStore(), scope, now, "seed2")).toBeNull();
  });

  it.each([
    { why: "current values", facts: [fact("name", "Anong", "f2")], summaries: [summary("sum1", "Talked about tea.")], sections: all, shows: ["Anong", "Talked about tea."], hides: [] },
    { why: "a deleted fact and a deleted summary are gone", facts: [], summaries: [], sections: all, shows: null, hides: [] },
    { why: "a stale summary is left out", facts: [fact("name", "Anong")], summaries: [summary("sum1", "Talked about tea.", true)], sections: all, shows: ["Anong"], hides: ["tea"] },
    { why: "only the sections asked for", facts: [fact("name", "Anong")], summaries: [summary("sum1", "Talked about tea.")], sections: { summaries: true, facts: false }, shows: ["tea"], hides: ["Anong"] },
    { why: "a fact it did not carry is not its to show", facts: [fact("city", "Paris")], summaries: [], sections: all, shows: null, hides: [] },
  ])("renders $why", async ({ facts, summaries, sections, shows, hides }) => {
    const store = await storeWith(facts, summaries);
    const seed = withMeta(new SystemMessage({ id: "seed", content: SEED_TEXT }), { pinned: true, carried: { summaryId: "sum1", factKeys: ["name"] } });
    // The summary is read from the store when recall did not read it.
    const carried = await carriedOverFor(store, scope, [seed], { ...sections, recalledSummaries: [], recalledFacts: facts });
    if (shows === null) return expect(carried).toBeNull();
    for (const text of shows) expect(carried?.text).toContain(text);
    for (const text of hides) expect(carried?.text).not.toContain(text);
  });

  it("stands in the prompt for what it carries this turn; a seed with frozen values (written before) is never shown", () => {
    const seed = withMeta(new SystemMessage({ id: "seed", content: SEED_TEXT }), { pinned: true, carried: { summaryId: null, factKeys: ["name"] } });
    const frozen = withMeta(new SystemMessage({ id: "old", content: "Carried over from earlier sessions:\n\nAbout the user:\n- name: Somchai" }), { pinned: true });
    const rule = withMeta(new SystemMessage({ id: "rule", content: "Always answer in Thai." }), { pinned: true });
    const parts = { systemPrompt: "You help.", newMessage: new HumanMessage({ id: "h", content: "hi" }), limits: DEFAULT_LIMITS.context };
    const memory = { text: "", tokens: 0, sections: {}, droppedForBudget: 0 };
    const system = (history: SystemMessage[], carried?: string) => textOf(assemblePrompt({ ...parts, history, memory: { ...memory, ...(carried ? { carried } : {}) } })[0]!);
    expect(system([seed, rule], "About the user:\n- name: Anong")).toBe("You help.\n\nAbout the user:\n- name: Anong\n\nAlways answer in Thai.");
    expect(system([seed, rule])).toBe("You help.\n\nAlways answer in Thai.");
    expect(system([frozen, rule])).toBe("You help.\n\nAlways answer in Thai.");
  });
});
