import { afterEach, describe, expect, it } from "vitest";
import { createMemoryGraph, type MemoryGraph } from "../../src/app/create-memory-graph.js";
import type { EntityRecord } from "../../src/memory/entities/graph-records.js";
import { loadAllNodes } from "../../src/memory/entities/graph-store.js";
import { startProvider, type Provider } from "../support/openai-provider.js";

/** The classification call's entities and relations reach the entity graph: the real ChatOpenAI client against a local stand-in. */
let provider: Provider | undefined;
let graph: MemoryGraph | undefined;
const scope = { tenantId: "acme", userId: "u1", sessionId: "s1" };

afterEach(async () => {
  await graph?.close();
  await provider?.close();
});

async function open(): Promise<{ provider: Provider; graph: MemoryGraph }> {
  provider = await startProvider("ok");
  graph = await createMemoryGraph({ backend: "memory", classify: "model", openai: { baseUrl: provider.baseUrl, model: "gpt-4o-mini", timeoutMs: 2000 }, retry: { retries: 0, baseDelayMs: 1 } });
  return { provider, graph };
}

async function nodes(graph: MemoryGraph): Promise<Map<string, EntityRecord>> {
  return loadAllNodes(graph.persistence.store, scope);
}

describe("entities and relations from the classification's structured answer", () => {
  it("are asked for in the one classification call and merged into the graph with the rules' own", async () => {
    const { provider, graph } = await open();
    provider.classification = {
      type: "INFORMATION",
      importance: 0.7,
      intent: "share_family_news",
      entities: ["person:Priya", "place:Pune", "organization:Infosys"],
      relations: ["Priya|sister_of|I", "Priya|lives_in|Pune", "Priya|works_for|Infosys", "not a triple"],
    };
    // The rules read "Priya" at a sentence's start as no name, and "she just moved to Pune" as the speaker's move.
    const result = await graph.runTurn({ ...scope, message: "Priya is my sister and she just moved to Pune. Infosys hired her.", messageId: "m1" });
    expect(result.status).toBe("OK");
    await graph.settled();
    const calls = provider.requests.filter((r) => r.path.endsWith("/chat/completions"));
    const classifying = calls.filter((r) => Array.isArray(r.body.tools));
    expect(calls).toHaveLength(2); // the reply and the classification: no extra call
    expect(JSON.stringify(classifying[0]?.body.tools)).toContain("relations");
    const graphNodes = await nodes(graph);
    const priya = graphNodes.get("priya");
    expect(priya?.mentions).toEqual([["s1", "m1"]]);
    expect(priya?.aliases).toEqual(["sister"]);
    expect(priya?.relations.map((r) => [r.type, r.to, r.sources])).toEqual(
      expect.arrayContaining([
        ["lives_in", "pune", [["s1", "m1"]]],
        ["works_at", "infosys", [["s1", "m1"]]],
        ["~sister", "me", [["s1", "m1"]]],
      ]),
    );
    expect(graphNodes.get("~sister")?.relations.map((r) => r.to)).toEqual(["priya"]);
    expect(graphNodes.get("infosys")?.kind).toBe("organization");
    // The turn's event is the classification as before: relations feed the graph only.
    const replay = await graph.runTurn({ ...scope, message: "Priya is my sister and she just moved to Pune. Infosys hired her.", messageId: "m1" });
    expect(replay.event).toMatchObject({ classifiedBy: "model", intent: "share_family_news" });
    expect(replay.event).not.toHaveProperty("relations");
  });

  it("a classification by the rules (the model failing) leaves the rules' graph only", async () => {
    const { provider, graph } = await open();
    provider.mode = "malformed";
    await graph.runTurn({ ...scope, message: "My brother Arjun lives in Delhi.", messageId: "m2" });
    await graph.settled();
    const graphNodes = await nodes(graph);
    expect(graphNodes.get("arjun")?.relations.map((r) => [r.type, r.to])).toEqual(expect.arrayContaining([["lives_in", "delhi"]]));
    expect([...graphNodes.keys()].sort()).toEqual(["arjun", "delhi", "me", "~brother"]);
  });

  it("an import classified by the model merges its relations into the import's graph, the speaker keyed as the rules key it", async () => {
    const { provider, graph } = await open();
    provider.classification = {
      type: "INFORMATION",
      importance: 0.7,
      intent: "share_family_news",
      entities: ["person:Priya", "place:Pune", "organization:Infosys"],
      relations: ["Priya|sister_of|I", "Priya|works_for|Infosys"],
    };
    const text = "Priya is my sister and she just moved to Pune. Infosys hired her.";
    const sessions = [{ sessionId: "s1", startedAt: "2024-01-05T10:00:00.000Z", messages: [{ id: "m1", role: "user" as const, text, speaker: "Ravi" }] }];
    const counts = await graph.importSessions(scope, sessions, { classify: true });
    expect(counts.classified).toBe(1);
    const graphNodes = await nodes(graph);
    // works_at is the model's alone: the rules read no employer in "Infosys hired her".
    expect(graphNodes.get("priya")?.relations.map((r) => [r.type, r.to, r.sources])).toEqual(
      expect.arrayContaining([
        ["works_at", "infosys", [["s1", "m1"]]],
        ["~sister", "ravi", [["s1", "m1"]]],
      ]),
    );
    expect(graphNodes.get("ravi")?.name).toBe("Ravi");
    expect([...graphNodes.keys()].filter((key) => key !== key.toLowerCase())).toEqual([]);
    // Without the classification, the same import's graph has no employer.
    await graph.forgetUser(scope);
    await graph.importSessions(scope, sessions);
    expect((await nodes(graph)).get("priya")?.relations.map((r) => r.type) ?? []).not.toContain("works_at");
  });
});
