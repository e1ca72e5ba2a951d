import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { createMemoryGraph } from "../../../src/index.js";
import { factKeysOf } from "../../../src/memory/entities/entity-graph.js";
import { extractFromMessage } from "../../../src/memory/entities/extract.js";
import { DEFAULT_LIMITS } from "../../../src/memory/limits.js";
import { namespaces } from "../../../src/memory/namespaces.js";
import { recordIndexText } from "../../../src/memory/ranking/document-text.js";
import type { TranscriptRecord } from "../../../src/memory/records.js";
import { SqliteStore } from "../../../src/storage/sqlite/store.js";
import { GRAPH_SESSIONS } from "../../support/entity-graph-contract.js";

describe("fact-augmented keys", () => {
  it.each([
    { text: "She works at Infosys there and loves it.", speaker: "me", active: "priya", keys: "priya" },
    { text: "My sister Priya just moved to Pune for her new job.", speaker: "me", active: undefined, keys: "lives in" },
    { text: "I bought a bicycle for the weekends.", speaker: "me", active: undefined, keys: "" },
    { text: "Jordan works at Acme Labs.", speaker: "Ann", active: undefined, keys: "" },
  ])("$text → '$keys'", ({ text, speaker, active, keys }) => {
    expect(factKeysOf(extractFromMessage(text, speaker, active), text)).toBe(keys);
  });

  it("are indexed with the text, before the date", () => {
    expect(recordIndexText({ text: "She works there.", keys: "Priya works at", createdAt: "2024-01-05T10:00:00.000Z" })).toBe("She works there.\nPriya works at\n5 January 2024");
  });

  it("are written only with the switch, and let a message that says \"she\" be found by the name it stands for", async () => {
    const user = { tenantId: "graph", userId: "ravi" };
    const run = async (factKeys: boolean) => {
      const store = SqliteStore.open(":memory:");
      const limits = { recall: { graph: { ...DEFAULT_LIMITS.recall.graph, factKeys } } };
      const memory = await createMemoryGraph({ persistence: { store, checkpointer: new MemorySaver() }, embeddings: null, chatModel: null, logger: false, limits });
      try {
        await memory.importSessions(user, GRAPH_SESSIONS);
        const m3 = (await store.get(namespaces.transcript({ ...user, sessionId: "s1" }), "m3"))?.value as TranscriptRecord;
        const hits = (await memory.search({ ...user, query: "Priya", limit: 10 })).hits;
        return { keys: m3.keys, lexical: hits.find((hit) => hit.id === "m3")?.scores?.lexical ?? 0 };
      } finally {
        await memory.close();
      }
    };
    const off = await run(false);
    const on = await run(true);
    expect(off.keys).toBeUndefined();
    expect(on.keys).toBe("priya"); // the active person by key: the index lower-cases words
    // The keys hold the name the text does not: the message now matches it by its words.
    expect(on.lexical).toBeGreaterThan(0);
    expect(off.lexical).toBe(0);
  });
});
