import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { AsyncBatchedStore, InMemoryStore } from "@langchain/langgraph-checkpoint";
import { describe, expect, it, vi } from "vitest";
import { createMemoryGraph } from "../../../src/app/create-memory-graph.js";
import { requireStore } from "../../../src/memory/store-io.js";

describe("the store a node works with", () => {
  it("is the store LangGraph wraps in its AsyncBatchedStore, or the given one", () => {
    const inner = new InMemoryStore();
    expect(requireStore({ store: new AsyncBatchedStore(inner) })).toBe(inner);
    expect(requireStore({ store: inner })).toBe(inner);
    expect(() => requireStore({})).toThrow(/needs a store/);
  });

  it("lets recall hand the query to a store that ranks it (SQLite) instead of listing candidates", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-store-access-"));
    const graph = await createMemoryGraph({ backend: "sqlite", sqlitePath: path.join(dir, "m.db"), chatModel: null });
    try {
      const search = vi.spyOn(graph.persistence.store, "search");
      const scope = { tenantId: "t1", userId: "u1", sessionId: "s1" };
      await graph.runTurn({ ...scope, message: "My plan costs 20 dollars a month" });
      await graph.runTurn({ ...scope, message: "What does my plan cost?" });
      const messageSearches = search.mock.calls.filter(([prefix]) => prefix.includes("sessions")).map(([, o]) => o ?? {});
      expect(messageSearches.some((o) => o.query === "What does my plan cost?")).toBe(true);
      // Ranking here would first list the candidate messages, page by page, with no query.
      expect(messageSearches.filter((o) => o.query === undefined && o.limit === 500)).toEqual([]);
    } finally {
      await graph.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
