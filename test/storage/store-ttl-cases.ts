import type { BaseStore, SearchItem } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../../src/errors.js";
import type { StoreTtlConfig } from "../../src/storage/shared/ttl.js";

/** A store with LangGraph's TTL arguments, as our three engines take them. */
export interface TtlStore extends BaseStore {
  get(namespace: string[], key: string, options?: { refreshTtl?: boolean }): ReturnType<BaseStore["get"]>;
  put(namespace: string[], key: string, value: Record<string, unknown>, index?: false | string[], options?: { ttl?: number | null }): Promise<void>;
  search(prefix: string[], options?: Parameters<BaseStore["search"]>[1] & { refreshTtl?: boolean }): Promise<SearchItem[]>;
  sweepExpiredItems(): Promise<number>;
}

/** A fresh, empty store with `ttl`, and a count of the item rows its storage holds (expired or not), read past the store. */
export interface TtlStoreUnderTest {
  store: TtlStore;
  storedRows(): Promise<number>;
}

const MINUTE = 60_000;
const ns = ["t1", "users", "u1", "facts"];
const keysOf = (items: readonly SearchItem[]) => items.map((i) => i.key).sort();

/**
 * LangGraph's store TTL semantics (`TTLConfig`, `PutOp.ttl`, `GetOp.refresh_ttl`), checked on one
 * engine. The clock is faked (Date only) and moved by minutes; every engine reads expiry against
 * `Date.now()`.
 */
export function describeStoreTtl(
  name: string,
  make: (ttl?: StoreTtlConfig) => Promise<TtlStoreUnderTest>,
  options: { textSearch: boolean; /** Lists a namespace whose items are all gone (InMemoryStore's way after any delete). */ listsEmptied?: boolean },
): void {
  describe(`${name} store TTL`, () => {
    let start: number;
    const opened: TtlStore[] = [];
    const open = async (ttl?: StoreTtlConfig) => {
      const made = await make(ttl);
      opened.push(made.store);
      return made;
    };
    const at = (minutes: number) => vi.setSystemTime(start + minutes * MINUTE);
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ["Date"] });
      start = Date.now();
    });
    afterEach(async () => {
      vi.useRealTimers();
      for (const store of opened.splice(0)) await store.stop();
    });

    it("an item put with a ttl is seen until it expires, then by no get, search or list", async () => {
      const { store } = await open();
      await store.put(ns, "city", { text: "staying in Bangkok this week" }, undefined, { ttl: 1 });
      await store.put(ns, "name", { text: "my name is Ana" });
      await store.put(["t1", "users", "u1", "trip"], "hotel", { text: "Bangkok hotel booked" }, undefined, { ttl: 1 });
      at(0.9);
      expect((await store.get(ns, "city", { refreshTtl: false }))?.value).toEqual({ text: "staying in Bangkok this week" });
      at(1.01);
      expect(await store.get(ns, "city")).toBeNull();
      expect(keysOf(await store.search(["t1", "users", "u1"]))).toEqual(["name"]);
      if (options.textSearch) expect(keysOf(await store.search(["t1", "users", "u1"], { query: "Bangkok" }))).toEqual([]);
      const spaces = await store.listNamespaces({ prefix: ["t1", "users"] });
      if (!options.listsEmptied) expect(spaces.map((s) => s.join("/"))).toEqual(["t1/users/u1/facts"]);
      expect((await store.get(ns, "name"))?.value).toEqual({ text: "my name is Ana" });
    });

    it("a store default TTL applies to puts without one; ttl null opts out, a put's own ttl wins", async () => {
      const { store } = await open({ defaultTtl: 2, refreshOnRead: false });
      await store.put(ns, "default", { text: "a" });
      await store.put(ns, "forever", { text: "b" }, undefined, { ttl: null });
      await store.put(ns, "longer", { text: "c" }, undefined, { ttl: 10 });
      at(2.5);
      expect(keysOf(await store.search(ns))).toEqual(["forever", "longer"]);
      at(60);
      expect(keysOf(await store.search(ns))).toEqual(["forever"]);
    });

    it("a put starts the TTL again, and a put without ttl (no store default) ends it", async () => {
      const { store } = await open({ refreshOnRead: false });
      await store.put(ns, "k", { text: "v1" }, undefined, { ttl: 1 });
      at(0.8);
      await store.put(ns, "k", { text: "v2" }, undefined, { ttl: 1 });
      at(1.5);
      expect((await store.get(ns, "k"))?.value).toEqual({ text: "v2" });
      await store.put(ns, "k", { text: "v3" });
      at(100);
      expect((await store.get(ns, "k"))?.value).toEqual({ text: "v3" });
    });

    it("refreshOnRead (the default): a get or search pushes the expiry back by the item's own TTL", async () => {
      const { store } = await open();
      await store.put(ns, "k", { text: "tea" }, undefined, { ttl: 1 });
      at(0.8);
      expect(await store.get(ns, "k")).not.toBeNull(); // now expires at 1.8
      at(1.6);
      expect(keysOf(await store.search(ns))).toEqual(["k"]); // now at 2.6
      at(2.4);
      if (options.textSearch) expect(keysOf(await store.search(ns, { query: "tea" }))).toEqual(["k"]); // now at 3.4
      else expect(await store.get(ns, "k")).not.toBeNull();
      at(3.3);
      expect(await store.get(ns, "k", { refreshTtl: false })).not.toBeNull();
      at(3.5);
      expect(await store.get(ns, "k")).toBeNull();
    });

    it("a call's refreshTtl overrides the store's refreshOnRead, either way", async () => {
      const off = (await open({ refreshOnRead: false })).store;
      await off.put(ns, "g", { text: "x" }, undefined, { ttl: 1 });
      await off.put(ns, "s", { text: "y" }, undefined, { ttl: 1 });
      await off.put(["t1", "users", "u1", "other"], "plain", { text: "z" }, undefined, { ttl: 1 });
      at(0.5);
      await off.get(ns, "g", { refreshTtl: true });
      await off.search(ns, { filter: { text: "y" }, refreshTtl: true });
      await off.get(["t1", "users", "u1", "other"], "plain");
      at(1.2);
      expect(keysOf(await off.search(["t1", "users", "u1"]))).toEqual(["g", "s"]);

      at(10);
      const on = (await open()).store;
      await on.put(ns, "g", { text: "x" }, undefined, { ttl: 1 });
      await on.put(ns, "s", { text: "y" }, undefined, { ttl: 1 });
      at(10.5);
      expect(await on.get(ns, "g", { refreshTtl: false })).not.toBeNull();
      expect(keysOf(await on.search(ns, { refreshTtl: false }))).toEqual(["g", "s"]);
      at(11.1);
      expect(await on.search(ns, { refreshTtl: false })).toEqual([]);
    });

    it("a ranked page is filled past expired hits the search index still holds", async () => {
      if (!options.textSearch) return;
      const { store } = await open({ refreshOnRead: false });
      for (const key of ["x1", "x2", "x3"]) await store.put(ns, key, { text: "green tea green tea" }, undefined, { ttl: 1 });
      await store.put(ns, "live1", { text: "green tea and a long note about other things entirely" });
      await store.put(ns, "live2", { text: "green tea with a second long note about other things" });
      const before = await store.search(ns, { query: "green tea", limit: 2 });
      expect(before.map((i) => i.key[0])).toEqual(["x", "x"]);
      at(1.5);
      const page = await store.search(ns, { query: "green tea", limit: 2 });
      expect(keysOf(page)).toEqual(["live1", "live2"]);
    });

    it("sweepExpiredItems deletes what expired from storage, and only that", async () => {
      const { store, storedRows } = await open({ refreshOnRead: false });
      await store.put(ns, "a", { text: "a" }, undefined, { ttl: 1 });
      await store.put(ns, "b", { text: "b" }, undefined, { ttl: 5 });
      await store.put(ns, "c", { text: "c" });
      at(2);
      expect(await storedRows()).toBe(3);
      expect(await store.sweepExpiredItems()).toBe(1);
      expect(await storedRows()).toBe(2);
      expect(await store.sweepExpiredItems()).toBe(0);
      expect(keysOf(await store.search(ns))).toEqual(["b", "c"]);
    });

    it("sweepIntervalMinutes: the open store sweeps by itself", async () => {
      vi.useFakeTimers({ toFake: ["Date", "setInterval", "clearInterval"] });
      const { store, storedRows } = await open({ sweepIntervalMinutes: 1 });
      await store.put(ns, "brief", { text: "a" }, undefined, { ttl: 0.5 });
      await store.put(ns, "lasting", { text: "b" });
      await vi.advanceTimersByTimeAsync(61_000);
      for (let i = 0; i < 200 && (await storedRows()) > 1; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await storedRows()).toBe(1);
    });

    it("refuses a bad ttl or refreshTtl with a clear error, changing nothing", async () => {
      const { store, storedRows } = await open();
      for (const ttl of [0, -1, Number.NaN, Infinity, "5" as unknown as number]) {
        await expect(store.put(ns, "k", { text: "v" }, undefined, { ttl })).rejects.toThrow(/ttl: must be a number of minutes > 0/);
      }
      await expect(store.get(ns, "k", { refreshTtl: "yes" as unknown as boolean })).rejects.toMatchObject({ code: "INVALID_INPUT", field: "refreshTtl" });
      expect(await storedRows()).toBe(0);
      await expect(make({ defaultTtl: 0 })).rejects.toThrow(MemoryGraphError);
      await expect(make({ refreshOnRead: "no" as unknown as boolean })).rejects.toMatchObject({ field: "ttl.refreshOnRead" });
    });
  });
}
