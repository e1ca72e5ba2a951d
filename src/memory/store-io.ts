import { BaseStore, type Item, type Operation, type SearchItem } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../errors.js";

/** Page size used when a layer reads a whole namespace. */
const PAGE = 500;

/**
 * Reads every item under `prefix` (matching `filter`), up to `cap` items, page by page.
 * Stores return items in their own order; callers sort by the record's own timestamps.
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
  return items;
}

/**
 * The `limit` most recently written items under `prefix`. Our stores answer a plain search newest
 * first, so that is one bounded query; any other store is read whole and sorted here.
 */
export async function newestItems(
  store: BaseStore,
  prefix: string[],
  options: { limit: number; filter?: Record<string, unknown> },
): Promise<Item[]> {
  if (isRankingStore(store)) return store.search(prefix, { filter: options.filter, limit: options.limit });
  const all = await listAll(store, prefix, { filter: options.filter });
  return all.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime()).slice(0, options.limit);
}

/** A store that counts a namespace's items itself (our SQLite and Postgres stores). */
interface CountingStore {
  countNamespace(namespace: string[]): Promise<number>;
}

function isCountingStore(store: BaseStore): store is BaseStore & CountingStore {
  return typeof (store as Partial<CountingStore>).countNamespace === "function";
}

/**
 * Whether exactly `namespace` (a leaf namespace: nothing is stored below it) holds at least
 * `count` items: an index count on our stores, else one probe for the item at offset `count - 1`.
 */
export async function hasStoredAtLeast(store: BaseStore, namespace: string[], count: number): Promise<boolean> {
  if (count <= 0) return true;
  if (isCountingStore(store)) return (await store.countNamespace(namespace)) >= count;
  return (await store.search(namespace, { limit: 1, offset: count - 1 })).length > 0;
}

/** The value of each item, typed by the caller's record shape. */
export function valuesOf<T>(items: readonly Item[]): T[] {
  return items.map((item) => item.value as T);
}

/** Newest first by an ISO timestamp field. */
export function newestFirst<T>(records: readonly T[], field: (record: T) => string): T[] {
  return [...records].sort((a, b) => field(b).localeCompare(field(a)));
}

/**
 * A store that ranks text queries itself (our SQLite and Postgres stores). Recall hands such a
 * store the query; for any other `BaseStore` it ranks candidates with the same ranking module.
 */
export interface RankingStore extends BaseStore {
  readonly ranksQueries: true;
}

export function isRankingStore(store: BaseStore): store is RankingStore {
  return (store as Partial<RankingStore>).ranksQueries === true;
}

/** A search hit with the ranking provenance our stores attach. */
export type RankedItem = SearchItem & { ranking?: { lexical?: number; vector?: number; fused: number } };

/** Runs several writes as one batch (one transaction on stores that support it). */
export async function writeAll(store: BaseStore, operations: Operation[]): Promise<void> {
  if (operations.length === 0) return;
  await store.batch(operations);
}

/**
 * The store of a node's config, or a clear error when the graph was compiled without one.
 * LangGraph hands nodes its store wrapped in an `AsyncBatchedStore`, which queues every call
 * for the next timer tick and hides what the wrapped store can do (`ranksQueries`); nodes get
 * the wrapped store itself, so each call goes straight to it and our stores rank queries.
 */
export function requireStore(config: { store?: BaseStore } | undefined): BaseStore {
  const store = config?.store;
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
