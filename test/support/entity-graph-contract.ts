import { MemorySaver, type BaseStore } from "@langchain/langgraph";
import { createMemoryGraph, type MemoryGraph } from "../../src/index.js";
import { walkEntityGraph } from "../../src/memory/entities/entity-walk.js";
import type { EntityRecord } from "../../src/memory/entities/graph-records.js";
import { loadAllNodes } from "../../src/memory/entities/graph-store.js";
import { DEFAULT_LIMITS } from "../../src/memory/limits.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { describeNodeTailContract } from "./entity-tail-contract.js";

/**
 * The entity-graph contract: the same sessions, imported through the public API, leave the same
 * graph on every engine; the walk reaches the same messages; deleting a message, a session or the
 * user removes what came only from it. Run by one test file per engine family.
 */

const user = { tenantId: "graph", userId: "ravi" };

export const GRAPH_SESSIONS = [
  {
    sessionId: "s1",
    startedAt: "2024-01-05T10:00:00.000Z",
    messages: [
      { id: "m1", role: "user" as const, text: "My sister Priya just moved to Pune for her new job." },
      { id: "m2", role: "assistant" as const, text: "That is exciting! How does she like it?" },
      { id: "m3", role: "user" as const, text: "She works at Infosys there and loves it." },
      { id: "m4", role: "user" as const, text: "I am planning a trip to Goa in March." },
    ],
  },
  {
    sessionId: "s2",
    startedAt: "2024-06-01T10:00:00.000Z",
    messages: [
      { id: "n1", role: "user" as const, text: "Big news: my sister Priya moved to Bangalore." },
      { id: "n2", role: "user" as const, text: "I bought a bicycle for the weekends." },
    ],
  },
];

/** The user's nodes as the graph reads them (each record with the sources added since it was written). */
async function nodesOf(store: BaseStore): Promise<Map<string, EntityRecord>> {
  return loadAllNodes(store, user);
}

async function opened(store: BaseStore): Promise<MemoryGraph> {
  // The walk on (it is off by default), so that search fuses it on every engine.
  const limits = { recall: { graph: { ...DEFAULT_LIMITS.recall.graph, walk: true } } };
  const memory = await createMemoryGraph({ persistence: { store, checkpointer: new MemorySaver() }, embeddings: null, chatModel: null, logger: false, limits });
  await memory.importSessions(user, GRAPH_SESSIONS);
  return memory;
}

/** The graph, walk and search results of the fixture on one engine: what every engine must agree on. */
export async function graphSnapshot(make: () => BaseStore): Promise<{ nodes: Record<string, unknown>; walk: string[]; hits: string[] }> {
  const store = make();
  const memory = await opened(store);
  try {
    const nodes = Object.fromEntries([...(await nodesOf(store))].sort(([a], [b]) => a.localeCompare(b)).map(([key, node]) => [key, { ...node, updatedAt: undefined }]));
    const walk = (await walkEntityGraph(store, user, "Where does my sister live now?", DEFAULT_LIMITS.recall.graph)).map((c) => c.id);
    const hits = (await memory.search({ ...user, query: "Where does Priya live now?", limit: 10 })).hits.map((hit) => hit.id);
    return { nodes, walk, hits };
  } finally {
    await memory.close();
  }
}

export function describeEntityGraphContract(name: string, make: () => BaseStore): void {
  describe(`entity graph on ${name}`, () => {
    describeNodeTailContract(name, make);

    it("keeps nodes and edges with their source messages, and a superseded relation with its end time", async () => {
      const store = make();
      const memory = await opened(store);
      try {
        const nodes = await nodesOf(store);
        const priya = nodes.get("priya");
        expect(priya?.mentions).toEqual([["s1", "m1"], ["s1", "m3"], ["s2", "n1"]]);
        const lives = priya?.relations.filter((r) => r.type === "lives_in") ?? [];
        expect(lives.map((r) => [r.to, r.sources, r.validTo ?? null])).toEqual([
          ["pune", [["s1", "m1"]], "2024-06-01T10:00:00.000Z"],
          ["bangalore", [["s2", "n1"]], null],
        ]);
        // The old place's side of the ended relation ends with it.
        expect(nodes.get("pune")?.relations.filter((r) => r.type === "~lives_in").map((r) => [r.to, r.validTo ?? null])).toEqual([["priya", "2024-06-01T10:00:00.000Z"]]);
        expect(nodes.get("bangalore")?.relations.filter((r) => r.type === "~lives_in").map((r) => [r.to, r.validTo ?? null])).toEqual([["priya", null]]);
        expect(priya?.relations).toEqual(expect.arrayContaining([expect.objectContaining({ type: "works_at", to: "infosys", sources: [["s1", "m3"]] })]));
        expect(nodes.get("~sister")?.relations.map((r) => r.to)).toEqual(["priya"]);
        expect(nodes.get("me")?.relations).toEqual(expect.arrayContaining([expect.objectContaining({ type: "sister", to: "priya" })]));
        // An assistant message without a speaker feeds nothing.
        expect([...nodes.values()].some((node) => node.mentions.some((ref) => ref[1] === "m2"))).toBe(false);
      } finally {
        await memory.close();
      }
    });

    it("a move said in a later write ends the old place's side of the relation, the old place not named again", async () => {
      const store = make();
      const memory = await createMemoryGraph({ persistence: { store, checkpointer: new MemorySaver() }, embeddings: null, chatModel: null, logger: false });
      try {
        await memory.importSessions(user, [GRAPH_SESSIONS[0]!]);
        expect((await nodesOf(store)).get("pune")?.relations.find((r) => r.type === "~lives_in")?.validTo).toBeUndefined();
        await memory.importSessions(user, [GRAPH_SESSIONS[1]!]);
        const pune = (await nodesOf(store)).get("pune");
        expect(pune?.relations.filter((r) => r.type === "~lives_in").map((r) => [r.to, r.validTo ?? null])).toEqual([["priya", "2024-06-01T10:00:00.000Z"]]);
        expect(pune?.relations[0]?.sources).toEqual([["s1", "m1"]]);
      } finally {
        await memory.close();
      }
    });

    it("lists entities (searchable, paged, aliases not listed) and reads one with its relations over time and their sources (library methods)", async () => {
      const store = make();
      const memory = await opened(store);
      try {
        const all = await memory.listEntities(user, { limit: 100 });
        expect(all.map((e) => e.key)).toEqual(expect.arrayContaining(["priya", "pune", "bangalore", "infosys", "me"]));
        expect(all.some((e) => e.key.startsWith("~"))).toBe(false);
        expect((await memory.listEntities(user, { query: "SISTER" })).map((e) => e.key)).toEqual(["priya"]);
        expect(await memory.listEntities(user, { limit: 2 })).toHaveLength(2);
        await expect(memory.listEntities(user, { limit: 0 })).rejects.toMatchObject({ code: "INVALID_INPUT" });
        const priya = await memory.getEntity(user, "Priya");
        expect(priya.relations.filter((r) => r.type === "lives_in").map((r) => [r.to, r.validTo])).toEqual([
          ["pune", "2024-06-01T10:00:00.000Z"],
          ["bangalore", null],
        ]);
        expect(priya.mentions[0]).toEqual({ sessionId: "s1", messageId: "m1" });
        await expect(memory.getEntity(user, "Nobody")).rejects.toMatchObject({ code: "NOT_FOUND" });
        await expect(memory.getEntity(user, "~sister")).rejects.toMatchObject({ code: "NOT_FOUND" });
      } finally {
        await memory.close();
      }
    });

    it("walks from an alias in the query to the messages about the entity it names", async () => {
      const store = make();
      const memory = await opened(store);
      try {
        const reached = (await walkEntityGraph(store, user, "Where does my sister live now?", DEFAULT_LIMITS.recall.graph)).map((c) => c.id);
        expect(reached).toEqual(expect.arrayContaining(["m1", "m3", "n1"]));
        expect(reached).not.toContain("n2");
        const none = await walkEntityGraph(store, user, "what did i buy?", DEFAULT_LIMITS.recall.graph);
        expect(none).toEqual([]);
      } finally {
        await memory.close();
      }
    });

    it("deleting a message removes what came only from it; an edit relearns it", async () => {
      const store = make();
      const memory = await opened(store);
      try {
        await memory.deleteMessage({ ...user, sessionId: "s2" }, "n1");
        let nodes = await nodesOf(store);
        expect(nodes.has("bangalore")).toBe(false);
        expect(nodes.get("priya")?.mentions).toEqual([["s1", "m1"], ["s1", "m3"]]);
        await memory.updateMessage({ ...user, sessionId: "s1" }, "m4", { text: "I am planning a trip to Kerala in March." });
        nodes = await nodesOf(store);
        expect(nodes.has("goa")).toBe(false);
        expect(nodes.get("kerala")?.mentions).toEqual([["s1", "m4"]]);
      } finally {
        await memory.close();
      }
    });

    it("an export carries the graph; export → forget → import restores it as it was, and the import sent again writes nothing", async () => {
      const store = make();
      const memory = await opened(store);
      try {
        // A node the offline rules would not extract again (as a model's classification adds them): restored, not re-extracted.
        const added: EntityRecord = { key: "acme labs", name: "Acme Labs", kind: "organization", aliases: [], mentions: [["s2", "n2"]], relations: [], updatedAt: "2024-06-01T10:00:01.000Z" };
        await store.put(namespaces.entities(user), added.key, { ...added }, false);
        const before = await nodesOf(store);
        await new Promise((resolve) => setTimeout(resolve, 2)); // a later millisecond than the writes before
        const exported = await memory.exportUser(user);
        const priya = exported.entities?.find((node) => node.key === "priya");
        expect(priya?.relations.filter((r) => r.type === "lives_in").map((r) => [r.to, r.validTo, r.sources])).toEqual([
          ["pune", "2024-06-01T10:00:00.000Z", [{ sessionId: "s1", messageId: "m1" }]],
          ["bangalore", null, [{ sessionId: "s2", messageId: "n1" }]],
        ]);
        expect(exported.entities?.map((node) => node.key)).toEqual([...before.keys()].sort());
        await memory.forgetUser(user);
        expect((await nodesOf(store)).size).toBe(0);
        const document = JSON.parse(JSON.stringify(exported)) as typeof exported;
        const counts = await memory.importSessions(user, document);
        expect(counts.entities).toBe(before.size);
        expect(await nodesOf(store)).toEqual(before);
        const again = await memory.importSessions(user, document);
        expect(again).toMatchObject({ messages: { imported: 0 }, entities: 0 });
        expect(await nodesOf(store)).toEqual(before);
        expect((await memory.exportUser(user)).entities).toEqual(exported.entities);
      } finally {
        await memory.close();
      }
    });

    it("a list of sessions sent again extracts nothing twice; a document's graph into a stored one is merged", async () => {
      const store = make();
      const memory = await opened(store);
      try {
        const before = await nodesOf(store);
        expect(await memory.importSessions(user, GRAPH_SESSIONS)).toMatchObject({ messages: { imported: 0 }, entities: 0 });
        expect(await nodesOf(store)).toEqual(before);
        // The document's node of Priya names one more message (a third session): merged into the stored node, nothing lost.
        const exported = await memory.exportUser(user);
        const third = { sessionId: "s3", startedAt: "2024-07-01T10:00:00.000Z", messages: [{ id: "k1", role: "user" as const, text: "Priya called me today." }] };
        const entities = (exported.entities ?? []).map((node) => (node.key === "priya" ? { ...node, mentions: [{ sessionId: "s3", messageId: "k1" }] } : node));
        const counts = await memory.importSessions(user, { ...exported, sessions: [third], events: [], facts: [], summaries: [], turns: [], entities });
        expect(counts.entities).toBe(1);
        expect((await nodesOf(store)).get("priya")?.mentions).toEqual([["s1", "m1"], ["s1", "m3"], ["s2", "n1"], ["s3", "k1"]]);
      } finally {
        await memory.close();
      }
    });

    it("refuses a document whose graph points outside it, and writes nothing", async () => {
      const store = make();
      const memory = await opened(store);
      try {
        const exported = await memory.exportUser(user);
        const before = await nodesOf(store);
        const nodes = exported.entities ?? [];
        const i = nodes.findIndex((node) => node.key === "priya");
        const dangling = nodes.map((node, j) => (j === i ? { ...node, relations: [...node.relations, { type: "friend", to: "nobody", validFrom: "2024-01-01T00:00:00.000Z", validTo: null, sources: [{ sessionId: "s1", messageId: "m1" }] }] } : node));
        await expect(memory.importSessions(user, { ...exported, entities: dangling })).rejects.toMatchObject({ code: "INVALID_INPUT", field: `entities.${i}.relations.${nodes[i]?.relations.length}.to` });
        const unknown = nodes.map((node, j) => (j === i ? { ...node, mentions: [{ sessionId: "s9", messageId: "x1" }] } : node));
        await expect(memory.importSessions(user, { ...exported, entities: unknown })).rejects.toMatchObject({ code: "UNKNOWN_REFERENCE", field: `entities.${i}.mentions.0` });
        expect(await nodesOf(store)).toEqual(before);
      } finally {
        await memory.close();
      }
    });

    it("deleting an entity cuts its name out of every layer, deletes the facts naming it, and recall stops finding it", async () => {
      const store = make();
      const memory = await opened(store);
      try {
        const fact = { id: "f1", key: "family.sister", value: "Priya", text: "sister: Priya", validFrom: "2024-01-05T10:00:00.000Z", validTo: null, sourceMessageIds: ["m1"], sessionId: "s1" };
        await store.put(namespaces.facts(user), fact.id, fact, false);
        expect((await memory.search({ ...user, query: "Priya", limit: 10 })).hits.length).toBeGreaterThan(0);
        expect(await memory.deleteEntity(user, "sister")).toMatchObject({ entities: 0, facts: 0 });
        await expect(memory.deleteEntity(user, "me")).rejects.toMatchObject({ code: "INVALID_INPUT", field: "entity" });
        const deleted = await memory.deleteEntity(user, "PRIYA");
        expect(deleted).toEqual({ entities: 1, facts: 1, staleSummaries: 0, redactedMessages: 2, redactedRecords: expect.any(Number) });
        await expect(memory.getEntity(user, "Priya")).rejects.toMatchObject({ code: "NOT_FOUND" });
        expect(JSON.stringify([...(await nodesOf(store)).values()]).toLowerCase()).not.toContain("priya");
        expect((await nodesOf(store)).get("infosys")?.relations.map((r) => r.to)).toEqual(["[removed]"]);
        const messages = await memory.listMessages(user, { limit: 100 });
        expect(messages.map((m) => m.text).join(" ")).not.toMatch(/priya/i);
        expect(messages.find((m) => m.id === "m1")).toMatchObject({ text: "My sister [removed] just moved to Pune for her new job.", redacted: true });
        expect(await memory.listFacts(user)).toEqual([]);
        expect((await memory.search({ ...user, query: "Priya", limit: 10 })).hits).toEqual([]);
        expect(await memory.deleteEntity(user, "Priya")).toMatchObject({ entities: 0, redactedMessages: 0 });
      } finally {
        await memory.close();
      }
    });

    it("deleting a relation takes it off both its nodes, the value it had superseded current again; the messages stay", async () => {
      const store = make();
      const memory = await opened(store);
      try {
        const before = await nodesOf(store);
        // Named from the place's side, by its inverse: the same relation, and Priya's earlier home is current again.
        expect(await memory.deleteRelation(user, "Bangalore", { type: "~lives_in", to: "Priya" })).toEqual({ relations: 1, restoredRelations: 1 });
        const nodes = await nodesOf(store);
        // The three nodes it changed move up the entity list; one it did not touch keeps its time.
        for (const key of ["priya", "bangalore", "pune"]) expect((nodes.get(key)?.updatedAt ?? "") > (before.get(key)?.updatedAt ?? "~")).toBe(true);
        expect(nodes.get("infosys")?.updatedAt).toBe(before.get("infosys")?.updatedAt);
        const edges = (key: string, type: string) => nodes.get(key)?.relations.filter((r) => r.type === type).map((r) => [r.to, r.validTo ?? null]);
        expect(edges("priya", "lives_in")).toEqual([["pune", null]]);
        expect(edges("pune", "~lives_in")).toEqual([["priya", null]]);
        expect(edges("bangalore", "~lives_in")).toEqual([]);
        expect(nodes.get("bangalore")?.mentions).toEqual([["s2", "n1"]]);
        expect((await memory.listMessages(user, { limit: 100 })).find((m) => m.id === "n1")?.text).toBe("Big news: my sister Priya moved to Bangalore.");
        expect(await memory.deleteRelation(user, "priya", { type: "lives_in", to: "bangalore" })).toEqual({ relations: 0, restoredRelations: 0 });
        expect(await memory.deleteRelation(user, "Priya", { type: "works_at", to: "Infosys" })).toEqual({ relations: 1, restoredRelations: 0 });
        expect((await nodesOf(store)).get("infosys")?.relations.filter((r) => r.type === "~works_at")).toEqual([]);
        expect((await memory.getEntity(user, "Priya")).relations.map((r) => r.type)).not.toContain("works_at");
        await expect(memory.deleteRelation(user, "Priya", { type: " ", to: "Pune" })).rejects.toMatchObject({ field: "type" });
      } finally {
        await memory.close();
      }
    });

    it("forgetting a session or the user removes its graph", async () => {
      const store = make();
      const memory = await opened(store);
      try {
        await memory.forgetSession({ ...user, sessionId: "s1" });
        const nodes = await nodesOf(store);
        expect(nodes.has("pune")).toBe(false);
        expect(nodes.has("infosys")).toBe(false);
        expect(nodes.get("priya")?.mentions).toEqual([["s2", "n1"]]);
        await memory.forgetUser(user);
        expect((await nodesOf(store)).size).toBe(0);
      } finally {
        await memory.close();
      }
    });
  });
}
