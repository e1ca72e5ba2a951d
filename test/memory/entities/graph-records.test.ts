import type { Extraction } from "../../../src/memory/entities/extract.js";
import { applyExtractions, MAX_EDGE_SOURCES, MAX_MENTIONS, withoutSources, type EntityRecord, type SourceRef } from "../../../src/memory/entities/graph-records.js";

const person = (key: string, mentioned = true) => ({ key, name: key, kind: "person" as const, aliases: [], ...(mentioned ? {} : { mentioned: false }) });
const place = (key: string) => ({ key, name: key, kind: "place" as const, aliases: [] });
const said = (extraction: Extraction, id: string, at: string) => ({ extraction, source: ["s", id] as SourceRef, at });

describe("applyExtractions", () => {
  it("supersedes a one-valued relation with a newer one and keeps the old with its end time", () => {
    const { graph } = applyExtractions(new Map(), [
      said({ entities: [person("priya"), place("pune")], relations: [{ from: "priya", type: "lives_in", to: "pune" }] }, "a", "2024-01-01"),
      said({ entities: [person("priya"), place("goa")], relations: [{ from: "priya", type: "lives_in", to: "goa" }] }, "b", "2024-02-01"),
    ]);
    const lives = graph.get("priya")?.relations.filter((r) => r.type === "lives_in");
    expect(lives).toEqual([
      { type: "lives_in", to: "pune", sources: [["s", "a"]], validFrom: "2024-01-01", validTo: "2024-02-01" },
      { type: "lives_in", to: "goa", sources: [["s", "b"]], validFrom: "2024-02-01" },
    ]);
    // The inverse edge on the old place ends with it; the new place's is open.
    expect(graph.get("pune")?.relations).toEqual([{ type: "~lives_in", to: "priya", sources: [["s", "a"]], validFrom: "2024-01-01", validTo: "2024-02-01" }]);
    expect(graph.get("goa")?.relations).toEqual([{ type: "~lives_in", to: "priya", sources: [["s", "b"]], validFrom: "2024-02-01" }]);
  });

  it("ends the old value's inverse edge on a stored node the new message does not name, and reports that node changed", () => {
    const stored = applyExtractions(new Map(), [said({ entities: [person("priya"), place("pune")], relations: [{ from: "priya", type: "lives_in", to: "pune" }] }, "a", "2024-01-01")]).graph;
    const { graph, changed } = applyExtractions(stored, [
      said({ entities: [person("priya"), place("goa")], relations: [{ from: "priya", type: "lives_in", to: "goa" }] }, "b", "2024-02-01"),
    ]);
    expect(graph.get("pune")?.relations[0]?.validTo).toBe("2024-02-01");
    expect(stored.get("pune")?.relations[0]?.validTo).toBeUndefined();
    expect([...changed].sort()).toEqual(["goa", "priya", "pune"]);
  });

  it("keeps many-valued relations side by side, adds a repeated one's source to it, and does not mutate its input", () => {
    const input = new Map<string, EntityRecord>([["me", { key: "me", name: "me", kind: "person", aliases: [], mentions: [], relations: [], updatedAt: "x" }]]);
    Object.freeze(input.get("me"));
    const friend = (to: string, id: string) => said({ entities: [person("me", false), person(to)], relations: [{ from: "me", type: "friend", to }] }, id, id);
    const { graph, changed } = applyExtractions(input, [friend("ann", "1"), friend("bo", "2"), friend("ann", "3")]);
    expect(graph.get("me")?.relations.map((r) => [r.to, r.sources.length, r.validTo])).toEqual([["ann", 2, undefined], ["bo", 1, undefined]]);
    expect(graph.get("me")?.mentions).toEqual([]);
    expect(input.get("me")?.relations).toEqual([]);
    expect([...changed].sort()).toEqual(["ann", "bo", "me"]);
  });

  it(`keeps at most ${MAX_MENTIONS} mentions per node, the newest`, () => {
    const many = Array.from({ length: MAX_MENTIONS + 5 }, (_, i) => said({ entities: [person("ann")], relations: [] }, `m${i}`, String(i).padStart(4, "0")));
    const mentions = applyExtractions(new Map(), many).graph.get("ann")?.mentions ?? [];
    expect(mentions).toHaveLength(MAX_MENTIONS);
    expect(mentions[0]).toEqual(["s", "m5"]);
  });

  it(`keeps at most ${MAX_EDGE_SOURCES} sources per edge, the newest`, () => {
    const many = Array.from({ length: MAX_EDGE_SOURCES + 3 }, (_, i) =>
      said({ entities: [person("me", false), place("goa")], relations: [{ from: "me", type: "said_place", to: "goa" }] }, `m${i}`, String(i).padStart(4, "0")),
    );
    const sources = applyExtractions(new Map(), many).graph.get("me")?.relations[0]?.sources ?? [];
    expect(sources).toHaveLength(MAX_EDGE_SOURCES);
    expect(sources[0]).toEqual(["s", "m3"]);
  });
});

describe("withoutSources", () => {
  const node: EntityRecord = {
    key: "priya",
    name: "Priya",
    kind: "person",
    aliases: [],
    mentions: [["s", "a"], ["s", "b"]],
    relations: [{ type: "lives_in", to: "pune", sources: [["s", "a"]], validFrom: "1" }, { type: "works_at", to: "acme", sources: [["s", "a"], ["t", "c"]], validFrom: "1" }],
    updatedAt: "1",
  };
  it.each([
    { gone: [] as string[], mentions: 2, relations: ["lives_in", "works_at"], same: true },
    { gone: ["a"], mentions: 1, relations: ["works_at"], same: false },
    { gone: ["a", "b"], mentions: 0, relations: ["works_at"], same: false },
  ])("without $gone: $mentions mentions, relations $relations", ({ gone, mentions, relations, same }) => {
    const kept = withoutSources(node, (ref) => gone.includes(ref[1]));
    expect(kept === node).toBe(same);
    expect(kept?.mentions).toHaveLength(mentions);
    expect(kept?.relations.map((r) => r.type)).toEqual(relations);
  });

  it("drops the node when nothing of it is left", () => {
    expect(withoutSources(node, () => true)).toBeNull();
  });
});
