import { InMemoryStore } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { extractionOfClassified, mergeExtractions, relationType } from "../../../src/memory/entities/model-extraction.js";
import { extractFromMessage } from "../../../src/memory/entities/extract.js";
import { saveTranscriptMessages } from "../../../src/memory/transcript.js";
import type { EntityRecord } from "../../../src/memory/entities/graph-records.js";
import { loadNodes } from "../../../src/memory/entities/graph-store.js";
import type { TranscriptRecord } from "../../../src/memory/records.js";
import { SqliteStore } from "../../../src/storage/sqlite/store.js";
import { normalizeEventCandidate } from "../../../src/models/structured-parse.js";

describe("a model's entities and relations in the graph's terms", () => {
  it.each([
    { stated: { from: "Priya", type: "sister_of", to: "I" }, edge: { from: "me", type: "sister", to: "priya" }, alias: "sister" },
    { stated: { from: "Priya", type: "wife of", to: "me" }, edge: { from: "me", type: "partner", to: "priya" }, alias: "wife" },
    { stated: { from: "I", type: "works_for", to: "Infosys" }, edge: { from: "me", type: "works_at", to: "infosys" }, alias: undefined },
    { stated: { from: "Priya", type: "moved to", to: "Pune" }, edge: { from: "priya", type: "lives_in", to: "pune" }, alias: undefined },
  ])("$stated.from|$stated.type|$stated.to → $edge.from —$edge.type→ $edge.to", ({ stated, edge, alias }) => {
    const extraction = extractionOfClassified([], [stated], "me");
    expect(extraction.relations).toEqual([edge]);
    const to = extraction.entities.find((entity) => entity.key === edge.to);
    expect(to?.aliases).toEqual(alias ? [alias] : []);
    // The speaker is a node of the message it does not name.
    const me = extraction.entities.find((entity) => entity.key === "me");
    if (edge.from === "me") expect(me?.mentioned).toBe(false);
  });

  it("keeps people, places and organisations of the entities, types a relation's object by the relation, skips a relation to itself", () => {
    const extraction = extractionOfClassified(
      [{ type: "person", value: "Bharat" }, { type: "product", value: "iPhone 15" }, { type: "order_id", value: "A-1" }, { type: "Company", value: "Acme Labs" }],
      [{ from: "Ann", type: "studies_at", to: "Oxford" }, { from: "Bharat", type: "friend", to: "bharat" }],
      "me",
    );
    expect(extraction.entities.map((e) => [e.key, e.kind])).toEqual([["bharat", "person"], ["acme labs", "organization"], ["ann", "person"], ["oxford", "organization"]]);
    expect(extraction.relations).toEqual([{ from: "ann", type: "studies_at", to: "oxford" }]);
  });

  it.each([
    { type: " Lives In ", want: "lives_in" },
    { type: "SISTER_OF", want: "sister_of" },
    { type: "!!", want: "" },
  ])("relation type $type → $want", ({ type, want }) => expect(relationType(type)).toBe(want));

  it("merges with the rules' extraction: entities by key (named by either is named), relations once", () => {
    const rules = extractFromMessage("My sister Priya moved to Pune.", "me");
    const model = extractionOfClassified([{ type: "person", value: "Priya" }], [{ from: "Priya", type: "sister_of", to: "I" }, { from: "Priya", type: "works_at", to: "Infosys" }], "me");
    const merged = mergeExtractions(rules, model);
    expect(merged.relations.filter((r) => r.type === "sister")).toHaveLength(1);
    expect(merged.relations).toEqual(expect.arrayContaining([{ from: "priya", type: "works_at", to: "infosys" }]));
    expect(merged.entities.filter((e) => e.key === "priya")).toHaveLength(1);
    expect(merged.entities.find((e) => e.key === "priya")?.aliases).toEqual(["sister"]);
  });

  it("reads a model's \"subject|relation|object\" strings, leaving out any that are not three parts", () => {
    const candidate = normalizeEventCandidate({ type: "information", importance: 0.5, intent: "x", relations: ["Priya|lives_in|Pune", "Priya|Pune", " | a | b", 7] }, "text") as { relations: unknown };
    expect(candidate.relations).toEqual([{ from: "Priya", type: "lives_in", to: "Pune" }]);
    expect(normalizeEventCandidate({ type: "x", importance: 1, intent: "y" }, "t")).not.toHaveProperty("relations");
  });
});

describe.each([
  ["memory", () => new InMemoryStore()],
  ["sqlite", () => SqliteStore.open(":memory:")],
])("coreference across turns on %s", (_name, make) => {
  const user = { tenantId: "t", userId: "u" };
  const record = (id: string, text: string, at: string, sessionId = "s1"): TranscriptRecord => ({ id, role: "user", text, parentId: null, sessionId, createdAt: at });
  const node = async (store: ReturnType<typeof make>, key: string): Promise<EntityRecord | undefined> => (await loadNodes(store, user, [key])).get(key);

  it("a pronoun opening a later turn's sentence is the session's last person named (a stored message), in that session only", async () => {
    const store = make();
    await saveTranscriptMessages(store, { ...user, sessionId: "s1" }, [record("m1", "My friend Ravi lives in Delhi.", "2024-01-01T10:00:00.000Z")]);
    await saveTranscriptMessages(store, { ...user, sessionId: "s2" }, [record("k1", "She works at Wipro.", "2024-01-01T10:00:30.000Z", "s2")]);
    await saveTranscriptMessages(store, { ...user, sessionId: "s1" }, [record("m2", "He works at Infosys now.", "2024-01-01T10:01:00.000Z")]);
    await saveTranscriptMessages(store, { ...user, sessionId: "s1" }, [record("m3", "Usko cricket pasand hai.", "2024-01-01T10:02:00.000Z")]);
    const ravi = await node(store, "ravi");
    expect(ravi?.relations).toEqual(expect.arrayContaining([expect.objectContaining({ type: "works_at", to: "infosys", sources: [["s1", "m2"]] })]));
    expect(ravi?.mentions).toEqual([["s1", "m1"], ["s1", "m2"], ["s1", "m3"]]);
    // Session s2 has named nobody: its "she" resolves to no one, and Wipro is the speaker's.
    expect(ravi?.relations.some((r) => r.to === "wipro")).toBe(false);
    expect((await node(store, "me"))?.relations).toEqual(expect.arrayContaining([expect.objectContaining({ type: "works_at", to: "wipro" })]));
  });
});
