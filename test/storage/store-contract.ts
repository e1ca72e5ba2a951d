import type { BaseStore, SearchItem } from "@langchain/langgraph-checkpoint";
import { capable, supportsOf } from "../../src/memory/store-io.js";

/** What a store under contract can do; checks it cannot pass are skipped, not weakened. */
export interface StoreCapabilities {
  /** Ranks `search({ query })` by text relevance, returning only matches. */
  textSearch: boolean;
  /** Refuses namespaces without a tenant with a `MemoryGraphError` (default true). */
  tenantRequired?: boolean;
  /** Fuses vector similarity (the local hashed n-gram embedder) with a 0.45 minimum. */
  vectorSearch?: boolean;
  /** Answers `search()` without a query newest-updated first, over every namespace under the prefix (default true). */
  newestFirst?: boolean;
  /** Filters without type coercion, supports $in/$nin, and rejects unknown operators (default true). */
  strictFilters?: boolean;
  /** Applies a batch's operations in order (a get after a put sees it; default true). */
  orderedBatch?: boolean;
}

const keysOf = (items: readonly SearchItem[]) => items.map((i) => i.key).sort();
const sorted = (namespaces: string[][]) => namespaces.map((ns) => ns.join("/")).sort();

/**
 * The behaviour every long-term store of memory-graph must show through `BaseStore` alone.
 * `make` returns a fresh, empty store; the suite calls `stop()` on it afterwards.
 */
export function describeStoreContract(name: string, make: () => Promise<BaseStore>, capabilities: StoreCapabilities): void {
  describe(`${name} store contract`, () => {
    let store: BaseStore;
    beforeEach(async () => {
      store = await make();
    });
    afterEach(async () => {
      await store.stop();
    });

    it("puts, gets, updates and deletes an item", async () => {
      const ns = ["t1", "users", "u1", "facts"];
      await store.put(ns, "k", { text: "likes tea", n: 1 });
      const first = await store.get(ns, "k");
      expect(first).toMatchObject({ namespace: ns, key: "k", value: { text: "likes tea", n: 1 } });
      expect(first?.createdAt).toBeInstanceOf(Date);
      await store.put(ns, "k", { text: "likes coffee", n: 2 });
      const second = await store.get(ns, "k");
      expect(second?.value).toEqual({ text: "likes coffee", n: 2 });
      expect(second?.createdAt.getTime()).toBe(first?.createdAt.getTime());
      expect(second?.updatedAt.getTime()).toBeGreaterThanOrEqual(first?.updatedAt.getTime() ?? Infinity);
      await store.delete(ns, "k");
      expect(await store.get(ns, "k")).toBeNull();
      expect(await store.get(ns, "missing")).toBeNull();
    });

    it("searches by namespace prefix, label by label", async () => {
      await store.put(["t1", "users", "u1", "events"], "e1", { text: "a" });
      await store.put(["t1", "users", "u1", "facts"], "f1", { text: "b" });
      await store.put(["t1", "users", "u10", "events"], "e2", { text: "c" });
      expect(keysOf(await store.search(["t1", "users", "u1"]))).toEqual(["e1", "f1"]);
      expect(keysOf(await store.search(["t1", "users"]))).toEqual(["e1", "e2", "f1"]);
      expect(keysOf(await store.search(["t1", "users", "u1", "events"]))).toEqual(["e1"]);
      expect(await store.search(["t1", "users", "u"])).toEqual([]);
      expect(await store.search(["t1", "users"], { limit: 2 })).toHaveLength(2);
      expect(await store.search(["t1", "users"], { limit: 2, offset: 2 })).toHaveLength(1);
    });

    it("filters on top-level fields, exactly and with operators", async () => {
      const ns = ["t1", "users", "u1", "events"];
      await store.put(ns, "a", { type: "COMPLAINT", importance: 0.9, open: true });
      await store.put(ns, "b", { type: "INQUIRY", importance: 0.4, open: false });
      await store.put(ns, "c", { type: "COMPLAINT", importance: 0.5, open: false });
      const keys = async (filter: Record<string, unknown>) => keysOf(await store.search(ns, { filter }));
      expect(await keys({ type: "COMPLAINT" })).toEqual(["a", "c"]);
      expect(await keys({ type: "COMPLAINT", open: false })).toEqual(["c"]);
      expect(await keys({ importance: { $gte: 0.5 } })).toEqual(["a", "c"]);
      expect(await keys({ importance: { $gt: 0.5 } })).toEqual(["a"]);
      expect(await keys({ importance: { $lt: 0.5 } })).toEqual(["b"]);
      expect(await keys({ importance: { $lte: 0.5, $gt: 0.4 } })).toEqual(["c"]);
      expect(await keys({ type: { $ne: "COMPLAINT" } })).toEqual(["b"]);
      expect(await keys({ type: { $eq: "INQUIRY" } })).toEqual(["b"]);
      expect(await keys({ type: "NOPE" })).toEqual([]);
    });

    it.runIf(capabilities.strictFilters !== false)("filters type-strictly, with $in, $nin and missing fields", async () => {
      const ns = ["t1", "users", "u1", "events"];
      await store.put(ns, "n", { v: 1, tags: ["x"] });
      await store.put(ns, "s", { v: "1" });
      await store.put(ns, "b", { v: true });
      await store.put(ns, "z", { other: 1 });
      const keys = async (filter: Record<string, unknown>) => keysOf(await store.search(ns, { filter }));
      expect(await keys({ v: 1 })).toEqual(["n"]);
      expect(await keys({ v: "1" })).toEqual(["s"]);
      expect(await keys({ v: true })).toEqual(["b"]);
      expect(await keys({ v: { $in: [1, "1"] } })).toEqual(["n", "s"]);
      expect(await keys({ v: { $nin: [1, "1"] } })).toEqual(["b", "z"]);
      expect(await keys({ v: { $ne: 1 } })).toEqual(["b", "s", "z"]);
      expect(await keys({ v: { $gte: "0" } })).toEqual(["s"]);
      expect(await keys({ tags: ["x"] })).toEqual(["n"]);
      await expect(store.search(ns, { filter: { v: { $regex: "x" } } })).rejects.toThrow(expect.objectContaining({ code: "INVALID_FILTER" }));
    });

    it.runIf(capabilities.orderedBatch !== false)("runs a batch in order, and tells recall whether it ranks queries itself", async () => {
      const ns = ["t1", "users", "u1", "facts"];
      const [, got, , gone] = await store.batch([
        { namespace: ns, key: "k", value: { text: "one" } },
        { namespace: ns, key: "k" },
        { namespace: ns, key: "k", value: null },
        { namespace: ns, key: "k" },
      ]);
      expect((got as { value?: unknown } | null)?.value).toEqual({ text: "one" });
      expect(gone).toBeNull();
      expect(supportsOf(store).rankedSearch).toBe(capabilities.textSearch);
    });

    it.skipIf(!capabilities.textSearch)("ranks a text query's matches, best first, scores in 0..1", async () => {
      const ns = ["t1", "users", "u1", "messages"];
      await store.put(ns, "refund", { text: "I want a refund for my broken order" });
      await store.put(ns, "refund2", { text: "the refund policy page" });
      await store.put(ns, "weather", { text: "the weather is lovely today" });
      await store.put(ns, "shipping", { text: "when will my order ship" });
      const hits = await store.search(ns, { query: "refund my order" });
      expect(hits[0]?.key).toBe("refund");
      expect(keysOf(hits)).toEqual(["refund", "refund2", "shipping"]);
      const scores = hits.map((h) => h.score ?? -1);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      for (const score of scores) {
        expect(score).toBeGreaterThanOrEqual(0);
        expect(score).toBeLessThanOrEqual(1);
      }
      expect(await store.search(ns, { query: "refund", filter: { text: "the refund policy page" } })).toHaveLength(1);
    });

    it.runIf(capabilities.newestFirst !== false)("pages the newest items across many namespaces under a prefix, with a filter and an offset", async () => {
      const user = ["t1", "users", "u1", "sessions"];
      const written: { key: string; session: number; role: string }[] = [];
      for (let i = 0; i < 30; i += 1) {
        const session = i % 4; // interleaved writes over four sessions
        const role = i % 3 === 0 ? "assistant" : "user";
        await store.put([...user, `s${session}`, "messages"], `m${i}`, { text: `message ${i}`, role });
        written.push({ key: `m${i}`, session, role });
      }
      await store.put([...user, "s1", "messages"], "m5", { text: "message 5, edited", role: "user" }); // newest now
      const newest = ["m5", ...written.map((w) => w.key).filter((k) => k !== "m5").reverse()];
      const page = await store.search(user, { limit: 6, offset: 3 });
      expect(page.map((item) => item.key)).toEqual(newest.slice(3, 9));
      const users = newest.filter((key) => key === "m5" || written.find((w) => w.key === key)?.role === "user");
      const filtered = await store.search(user, { filter: { role: "user" }, limit: 5, offset: 2 });
      expect(filtered.map((item) => item.key)).toEqual(users.slice(2, 7));
      expect((await store.search([...user, "s2"], { limit: 100 })).map((item) => item.key)).toEqual(
        written.filter((w) => w.session === 2).map((w) => w.key).reverse(),
      );
    });

    it("lists namespaces under a prefix, cut to maxDepth, with suffix, limit and offset", async () => {
      await store.put(["t1", "users", "u1", "events"], "k", { x: 1 });
      await store.put(["t1", "users", "u1", "facts"], "k", { x: 1 });
      await store.put(["t1", "users", "u2", "events"], "k", { x: 1 });
      await store.put(["t2", "users", "u9", "events"], "k", { x: 1 });
      expect(sorted(await store.listNamespaces({ prefix: ["t1"] }))).toEqual([
        "t1/users/u1/events",
        "t1/users/u1/facts",
        "t1/users/u2/events",
      ]);
      expect(sorted(await store.listNamespaces({ prefix: ["t1", "users"], maxDepth: 3 }))).toEqual(["t1/users/u1", "t1/users/u2"]);
      expect(sorted(await store.listNamespaces({ prefix: ["t1"], suffix: ["events"] }))).toEqual([
        "t1/users/u1/events",
        "t1/users/u2/events",
      ]);
      expect(sorted(await store.listNamespaces({ prefix: ["t1", "users", "*", "facts"] }))).toEqual(["t1/users/u1/facts"]);
      expect(await store.listNamespaces({ prefix: ["t1"], limit: 2 })).toHaveLength(2);
      expect(await store.listNamespaces({ prefix: ["t1"], limit: 2, offset: 2 })).toHaveLength(1);
    });

    it.skipIf(capabilities.tenantRequired === false)("refuses namespaces without a valid tenant and changes nothing", async () => {
      const code = (c: string) => expect.objectContaining({ name: "MemoryGraphError", code: c });
      await expect(store.put([], "k", { x: 1 })).rejects.toThrow(code("NAMESPACE_TENANT_REQUIRED"));
      await expect(store.put(["", "users"], "k", { x: 1 })).rejects.toThrow(code("NAMESPACE_TENANT_REQUIRED"));
      await expect(store.put(["a/b", "users"], "k", { x: 1 })).rejects.toThrow(code("INVALID_NAMESPACE"));
      await expect(store.put(["..", "users"], "k", { x: 1 })).rejects.toThrow(code("INVALID_NAMESPACE"));
      await expect(store.put(["t\u0007", "users"], "k", { x: 1 })).rejects.toThrow(code("INVALID_NAMESPACE"));
      await expect(store.get([], "k")).rejects.toThrow(code("NAMESPACE_TENANT_REQUIRED"));
      await expect(store.delete([], "k")).rejects.toThrow(code("NAMESPACE_TENANT_REQUIRED"));
      await expect(store.search([])).rejects.toThrow(code("NAMESPACE_TENANT_REQUIRED"));
      await expect(store.listNamespaces()).rejects.toThrow(code("NAMESPACE_TENANT_REQUIRED"));
      await expect(store.listNamespaces({ prefix: ["*"] })).rejects.toThrow(code("NAMESPACE_TENANT_REQUIRED"));
      await expect(
        store.batch([
          { namespace: ["t1", "ok"], key: "good", value: { x: 1 } },
          { namespace: [], key: "bad", value: { x: 1 } },
        ]),
      ).rejects.toThrow(code("NAMESPACE_TENANT_REQUIRED"));
      expect(await store.get(["t1", "ok"], "good")).toBeNull();
    });

    it("never shows one tenant's items to another", async () => {
      await store.put(["t1", "users", "u1", "facts"], "k", { text: "tenant one secret" });
      await store.put(["t10", "users", "u1", "facts"], "k", { text: "tenant ten secret" });
      expect((await store.get(["t1", "users", "u1", "facts"], "k"))?.value.text).toBe("tenant one secret");
      const one = await store.search(["t1"], { limit: 100 });
      expect(one.map((i) => i.namespace[0])).toEqual(["t1"]);
      const ten = await store.search(["t10"], { query: "secret", limit: 100 });
      expect(ten.every((i) => i.namespace[0] === "t10")).toBe(true);
      expect(sorted(await store.listNamespaces({ prefix: ["t1"] }))).toEqual(["t1/users/u1/facts"]);
      await store.delete(["t1", "users", "u1", "facts"], "k");
      expect((await store.get(["t10", "users", "u1", "facts"], "k"))?.value.text).toBe("tenant ten secret");
    });

    it.runIf(capabilities.textSearch)("ranks text matches first, returns only matches, scores within 0..1", async () => {
      const ns = ["t1", "users", "u1", "messages"];
      await store.put(ns, "a", { text: "The blender arrived broken and makes a grinding noise" });
      await store.put(ns, "b", { text: "What time do you open on Sunday?" });
      await store.put(ns, "c", { text: "Is the blender covered by the warranty?" });
      const hits = await store.search(ns, { query: "broken blender noise", limit: 10 });
      expect(hits.map((h) => h.key)).toEqual(["a", "c"]);
      for (const hit of hits) expect(hit.score).toBeGreaterThan(0);
      for (const hit of hits) expect(hit.score).toBeLessThanOrEqual(1);
      expect(await store.search(ns, { query: "zeppelin", limit: 10 })).toEqual([]);
    });

    it.runIf(capabilities.textSearch)("searches Thai text, which has no spaces between words", async () => {
      const ns = ["t1", "users", "u1", "messages"];
      await store.put(ns, "th", { text: "ราคาสินค้านี้เท่าไหร่" });
      await store.put(ns, "en", { text: "How much is this product?" });
      const hits = await store.search(ns, { query: "สินค้า ราคา", limit: 10 });
      expect(hits[0]?.key).toBe("th");
    });

    it.runIf(capabilities.vectorSearch === true)("finds a misspelt word by vector similarity, and nothing under the minimum", async () => {
      const ns = ["t1", "users", "u1", "messages"];
      await store.put(ns, "fridge", { text: "refrigerator" });
      await store.put(ns, "other", { text: "Sunday opening hours" });
      const hits = await store.search(ns, { query: "refrigirator", limit: 10 });
      expect(hits.map((h) => h.key)).toEqual(["fridge"]);
      expect(await store.search(ns, { query: "qqqq zzzz", limit: 10 })).toEqual([]);
    });

    it("does what its store port declares, and refuses what it does not with STORE_CAPABILITY_MISSING", async () => {
      const supports = supportsOf(store);
      await store.put(["t1", "users", "u1", "facts"], "f1", { text: "likes tea" });
      await store.put(["t1", "users", "u1", "facts"], "f2", { text: "likes cake" });
      await store.put(["t2", "users", "u1", "facts"], "f1", { text: "likes rain" });
      const refused = expect.objectContaining({ code: "STORE_CAPABILITY_MISSING", kind: "system" });
      if (supports.namespaceCounts) expect(await capable(store, "namespaceCounts").countNamespace(["t1", "users", "u1", "facts"])).toBe(2);
      else expect(() => capable(store, "namespaceCounts")).toThrow(refused);
      if (supports.tenantListing) expect((await capable(store, "tenantListing").listTenants()).sort()).toEqual(["t1", "t2"]);
      else expect(() => capable(store, "tenantListing")).toThrow(refused);
      if (supports.orphanCleanup) expect(await capable(store, "orphanCleanup").removeOrphanedIndexRows()).toBe(0);
      else expect(() => capable(store, "orphanCleanup")).toThrow(refused);
      if (supports.prefixDeletion) {
        expect(await capable(store, "prefixDeletion").deleteNamespacePrefix(["t1", "users"])).toBe(2);
        expect(keysOf(await store.search(["t2"]))).toEqual(["f1"]);
        expect(await store.search(["t1"])).toEqual([]);
      } else {
        expect(() => capable(store, "prefixDeletion")).toThrow(refused);
      }
      if (!supports.rankedSearch) expect(() => capable(store, "rankedSearch")).toThrow(refused);
      if (supports.searchWarming) await expect(capable(store, "searchWarming").warmSearch(["t2", "users"])).resolves.toBeUndefined();
      else expect(() => capable(store, "searchWarming")).toThrow(refused);
    });

    it("keeps all of 20 concurrent puts", async () => {
      const ns = ["t1", "users", "u1", "messages"];
      await Promise.all(Array.from({ length: 20 }, (_, i) => store.put(ns, `m${i}`, { text: `message number ${i}`, i })));
      const items = await store.search(ns, { limit: 100 });
      expect(items).toHaveLength(20);
      expect(new Set(items.map((i) => i.value.i)).size).toBe(20);
    });
  });
}
