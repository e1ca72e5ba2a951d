import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { AsyncBatchedStore, InMemoryStore } from "@langchain/langgraph-checkpoint";
import { describe, expect, it, vi } from "vitest";
import { createMemoryGraph } from "../../../src/app/create-memory-graph.js";
import { requireStore, STORE_KEY } from "../../../src/memory/store-io.js";

describe("the store a node works with", () => {
  it("is the store LangGraph wraps in its AsyncBatchedStore, or the given one", () => {
    const inner = new InMemoryStore();
    expect(requireStore({ store: new AsyncBatchedStore(inner) })).toBe(inner);
    expect(requireStore({ store: inner })).toBe(inner);
    expect(() => requireStore({})).toThrow(/needs a store/);
  });

  it("is the store the run config hands over, before any LangGraph passes", () => {
    const handed = new InMemoryStore();
    const compiledIn = new InMemoryStore();
    expect(requireStore({ store: new AsyncBatchedStore(compiledIn), configurable: { [STORE_KEY]: handed } })).toBe(handed);
    // Anything else under the key is not a store: LangGraph's is used.
    expect(requireStore({ store: compiledIn, configurable: { [STORE_KEY]: "not a store" } })).toBe(compiledIn);
  });

  it("reaches the facade's turns, summaries included, with no AsyncBatchedStore polling through them", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-store-poll-"));
    const graph = await createMemoryGraph({ backend: "sqlite", sqlitePath: path.join(dir, "m.db"), chatModel: null, limits: { summaryInterval: 2 } });
    const started = vi.spyOn(AsyncBatchedStore.prototype, "start");
    try {
      // Every write of our stores, `put` included, is a `batch` of put operations.
      const batch = vi.spyOn(graph.persistence.store, "batch");
      const written = () => batch.mock.calls.flatMap(([operations]) => operations.filter((op) => "value" in op).map((op) => (op).namespace));
      const scope = { tenantId: "t1", userId: "u1", sessionId: "s1" };
      for (const message of ["My sister lives in Pune", "She moved there last month", "Send her the new card", "Thanks"]) {
        await graph.runTurn({ ...scope, message });
      }
      await graph.settled();
      expect(written().some((namespace) => namespace.includes("summaries"))).toBe(true);
      expect(written().filter((namespace) => namespace.at(-1) === "messages")).toHaveLength(8);
      expect(started).not.toHaveBeenCalled();
      // The public `app` keeps its compiled-in store (and LangGraph's wrapper) for callers who run it themselves.
      await graph.app.invoke({ ...scope, message: "And one more" }, { configurable: { thread_id: "direct" } });
      expect(started).toHaveBeenCalled();
    } finally {
      started.mockRestore();
      await graph.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
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
