import { BaseStore, type Item } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../errors.js";
import { JSON_BOUNDS, jsonDepth } from "../json-bounds.js";
import { log } from "../logger.js";
import { PLAIN_STORE_SUPPORTS, type StoreCapability, type StorePort, type StoreSupports, type WeightedSearchOptions } from "./ports/store.js";

/** Page size used when a layer reads a whole namespace. */
const PAGE = 500;

/**
 * Deepest stored record a layer reads: inputs nest at most `JSON_BOUNDS.maxDepth` levels, and a
 * record wraps them in a few more. Anything deeper was stored before inputs were bounded.
 */
export const MAX_RECORD_DEPTH = JSON_BOUNDS.maxDepth + 8;

/**
 * The items whose value nests at most `MAX_RECORD_DEPTH` levels; any other is skipped, with a
 * warning naming its key (never its content), so that no reader, serializer or checkpoint meets it.
 */
export function readableItems(items: Item[]): Item[] {
  const readable = items.filter((item) => jsonDepth(item.value, MAX_RECORD_DEPTH) <= MAX_RECORD_DEPTH);
  if (readable.length === items.length) return items;
  for (const item of items) {
    if (!readable.includes(item)) log.warn("memory.record_too_deep", { layer: item.namespace.at(-1), key: item.key, max_depth: MAX_RECORD_DEPTH });
  }
  return readable;
}

/**
 * Reads every item under `prefix` (matching `filter`), up to `cap` items, page by page.
 * Stores return items in their own order; callers sort by the record's own timestamps. A record
 * nested too deep to read safely is skipped (`readableItems`).
 */
export async function listAll(
  store: BaseStore,
  prefix: string[],
  options: { filter?: Record<string, unknown>; cap?: number } = {},
): Promise<Item[]> {
  const cap = options.cap ?? 10_000;
  const items: Item[] = [];
  for (let offset = 0; items.length < cap; offset += PAGE) {
    const limit = Math.min(PAGE, cap - items.length);
    const page = await store.search(prefix, { filter: options.filter, limit, offset });
    items.push(...page);
    if (page.length < limit) break;
  }
  return readableItems(items);
}

/**
 * The `limit` most recently written items under `prefix` (after skipping the newest `offset`). Our
 * stores answer a plain search newest first, so that is one bounded query (`textChars`: see
 * `RecallSearchOptions`); any other store is read whole and sorted here.
 */
export async function newestItems(
  store: BaseStore,
  prefix: string[],
  options: { limit: number; offset?: number; filter?: Record<string, unknown>; textChars?: number },
): Promise<Item[]> {
  const offset = options.offset ?? 0;
  if (supportsOf(store).rankedSearch) {
    const search: WeightedSearchOptions = { filter: options.filter, limit: options.limit, textChars: options.textChars, ...(offset > 0 ? { offset } : {}) };
    return readableItems(await store.search(prefix, search));
  }
  // Items written in the same millisecond (one batch) tie: a store lists in write order (LangGraph's
  // InMemoryStore does), so the later listed is the newer. The sort is stable.
  const all = (await listAll(store, prefix, { filter: options.filter })).reverse();
  return all.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime()).slice(offset, offset + options.limit);
}

/**
 * Whether exactly `namespace` (a leaf namespace: nothing is stored below it) holds at least
 * `count` items: an index count on our stores, else one probe for the item at offset `count - 1`.
 */
export async function hasStoredAtLeast(store: BaseStore, namespace: string[], count: number): Promise<boolean> {
  if (count <= 0) return true;
  if (supportsOf(store).namespaceCounts) return (await capable(store, "namespaceCounts").countNamespace(namespace)) >= count;
  return (await store.search(namespace, { limit: 1, offset: count - 1 })).length > 0;
}

/**
 * Has a store that keeps an in-process search index build the index of `prefix` now, after a
 * write, rather than on the first query that needs it; nothing on any other store.
 */
export async function warmSearch(store: BaseStore, prefix: string[]): Promise<void> {
  if (supportsOf(store).searchWarming) await capable(store, "searchWarming").warmSearch(prefix);
}

/** The value of each item, typed by the caller's record shape. */
export function valuesOf<T>(items: readonly Item[]): T[] {
  return items.map((item) => item.value as T);
}

/** Newest first by an ISO timestamp field. */
export function newestFirst<T>(records: readonly T[], field: (record: T) => string): T[] {
  return [...records].sort((a, b) => field(b).localeCompare(field(a)));
}


function declaresSupports(store: BaseStore): store is StorePort {
  const supports = (store as Partial<StorePort>).supports;
  return typeof supports === "object" && supports !== null;
}

/** What `store` declares it can do beyond `BaseStore` (every flag false for a plain LangGraph store). */
export function supportsOf(store: BaseStore): Readonly<StoreSupports> {
  return declaresSupports(store) ? store.supports : PLAIN_STORE_SUPPORTS;
}

/**
 * `store` as the store port, for a capability it declares; STORE_CAPABILITY_MISSING (a system
 * fault: the caller should have checked `supportsOf`) when it does not.
 */
export function capable(store: BaseStore, capability: StoreCapability): StorePort {
  if (declaresSupports(store) && store.supports[capability]) return store;
  throw new MemoryGraphError("STORE_CAPABILITY_MISSING", `the store (${store.constructor.name}) does not support ${capability}`, {
    kind: "system",
  });
}

/** The `configurable` key under which a run hands its nodes the store directly (see `withStore`). */
export const STORE_KEY = "memory_graph_store";

/**
 * `graph` with `store` handed to every node of every run through the run config, for a graph
 * compiled without one. A store compiled in is wrapped by LangGraph in an `AsyncBatchedStore`
 * whose queue waits on a 0 ms timer, over and over, for as long as a run lasts — though nodes
 * never queue on it (see `requireStore`): about 1 ms of CPU a turn of 20 streamed tokens and
 * 3.3 ms of 150 (bench:stream-cost profile, docs/cost.md), work no one is served by.
 */
export function withStore<G extends { withConfig(config: { configurable: Record<string, unknown> }): G }>(graph: G, store: BaseStore): G {
  return graph.withConfig({ configurable: { [STORE_KEY]: store } });
}

/**
 * The store of a node's config — handed over by `withStore`, else the one LangGraph passes (the
 * graph's own, or one a host such as the dev server injects) — or a clear error when there is
 * none. LangGraph hands nodes its store wrapped in an `AsyncBatchedStore`, which queues every call
 * for the next timer tick and hides what the wrapped store can do (its `supports`); nodes get
 * the wrapped store itself, so each call goes straight to it and our stores rank queries.
 */
export function requireStore(config: { store?: BaseStore; configurable?: Record<string, unknown> } | undefined): BaseStore {
  const handed = config?.configurable?.[STORE_KEY];
  const store = handed instanceof BaseStore ? handed : config?.store;
  if (!store) {
    throw new MemoryGraphError("STORE_MISSING", "the graph needs a store: compile it with one or run it where one is injected", {
      kind: "system",
    });
  }
  return unwrapStore(store);
}

/** The store inside LangGraph's `AsyncBatchedStore` (recognised as LangGraph itself does), else `store`. */
export function unwrapStore(store: BaseStore): BaseStore {
  const batched = store as BaseStore & { lg_name?: unknown; store?: unknown };
  return batched.lg_name === "AsyncBatchedStore" && batched.store instanceof BaseStore ? batched.store : store;
}
