import type { BaseStore, PutOperation, SearchItem, SearchOperation } from "@langchain/langgraph-checkpoint";

/**
 * Provenance of a ranked hit: normalised lexical score (query plus expansion terms), what
 * neighbouring items added to it, cosine similarity, and the fused score (= the hit's `score`).
 * The one ranking shape of stores that rank and of recall ranking a plain store's items itself.
 */
export interface Ranking {
  lexical?: number;
  context?: number;
  vector?: number;
  fused: number;
}

/** A search hit, with the ranking provenance a ranking store (or recall) attaches. */
export type RankedItem = SearchItem & { ranking?: Ranking };

/**
 * Per role, a factor (0..1) on the lexical score of the items of that role (`HybridOptions.labelWeights`).
 * Our stores carry it from `search` options into the operation and rank by it.
 */
export type LabelWeights = Readonly<Record<string, number>>;

/**
 * What recall asks of a search beyond `BaseStore`'s options, carried by our stores from `search`
 * options into the operation: `labelWeights`; `withNeighbours`: also return items found only
 * as neighbours of matches (the answer written after a matching question), which a plain search
 * leaves out; `textChars`: the caller reads no more than this many leading characters of a value's
 * `text` (and whether there are more), so a longer `text` may come back as a prefix of it at
 * least `textChars` long (a positive integer). The SQLite store honours all three (it cuts a long
 * text in SQL, so a long message is not read whole only to be cut); the Postgres store honours the
 * first two and returns texts whole.
 */
export interface RecallSearchOptions {
  labelWeights?: LabelWeights;
  /** The query asks for a list (`asksForList`): ranked with `HybridOptions.listQuery`. */
  asksForList?: boolean;
  /** The query asks for a sum or an order of several things (`asksForAggregate`): ranked with `HybridOptions.aggregateQuery`. */
  asksForAggregate?: boolean;
  /** Terms of the kinds of thing a list or "Where …?" question asks for (`categoryTermsOf`), ranked at `categoryWeight` (`HybridOptions.categoryTerms`). */
  categoryTerms?: readonly string[];
  categoryWeight?: number;
  /** Terms of the query's phrases of relative time (`relativeTimeTerms`), ranked apart (`HybridOptions.timeTerms`). */
  timeTerms?: readonly string[];
  withNeighbours?: boolean;
  textChars?: number;
}

/** `BaseStore.search` options with recall's (`RecallSearchOptions`). */
export type WeightedSearchOptions = NonNullable<Parameters<BaseStore["search"]>[1]> & RecallSearchOptions;

/** A search operation with recall's options (`RecallSearchOptions`). */
export type WeightedSearch = SearchOperation & RecallSearchOptions;

/**
 * What a store can do beyond `BaseStore`, declared by the store itself (Mastra's `supports…`
 * flags). Memory checks a flag before it uses the capability and otherwise takes its own,
 * deliberate path through plain `BaseStore` calls; asking a store for a capability it lacks fails
 * with STORE_CAPABILITY_MISSING, never an empty answer.
 */
export interface StoreSupports {
  /** `search({ query })` ranks by text relevance, returning only hits with `score` and `ranking`; without a query, newest-updated first. */
  rankedSearch: boolean;
  /** `countNamespace`: an index count of one namespace's items. */
  namespaceCounts: boolean;
  /** `deleteNamespacePrefix`: every item under a prefix in one transaction. */
  prefixDeletion: boolean;
  /** `listTenants`: the tenant labels items are stored under. */
  tenantListing: boolean;
  /** `removeOrphanedIndexRows`: index rows whose item is gone. */
  orphanCleanup: boolean;
  /** `warmSearch`: builds the in-process search index of a prefix ahead of its first ranked search. */
  searchWarming: boolean;
  /**
   * LangGraph's store TTL: a put's `ttl` (minutes), reads' `refreshTtl`, expired items invisible at
   * once, and `sweepExpiredItems` to delete them.
   */
  ttl: boolean;
  /** `listUsers`: a tenant's users with their activity and counts, in one query. */
  userListing: boolean;
  /** `listTranscripts`: a user's transcripts with their counts and first and last messages, in one query. */
  transcriptListing: boolean;
  /** A put's `deferVector` (`DeferredVectorPut`) and `embedDeferred`: an item's vector written after the item. */
  deferredVectors: boolean;
}

/** What a plain `BaseStore` (InMemoryStore, the dev server's store) declares: nothing beyond `BaseStore`. */
export const PLAIN_STORE_SUPPORTS: Readonly<StoreSupports> = Object.freeze({
  rankedSearch: false,
  namespaceCounts: false,
  prefixDeletion: false,
  tenantListing: false,
  orphanCleanup: false,
  searchWarming: false,
  ttl: false,
  userListing: false,
  transcriptListing: false,
  deferredVectors: false,
});

/** What our SQLite and Postgres stores declare: every capability of the port. */
export const FULL_STORE_SUPPORTS: Readonly<StoreSupports> = Object.freeze({
  rankedSearch: true,
  namespaceCounts: true,
  prefixDeletion: true,
  tenantListing: true,
  orphanCleanup: true,
  searchWarming: true,
  ttl: true,
  userListing: true,
  transcriptListing: true,
  deferredVectors: true,
});

/**
 * A put to a store with `deferredVectors`: with `deferVector`, the item is written and indexed for
 * text search now, and its vector is not computed (a search finds it lexically); `embedDeferred`
 * computes and writes it later.
 */
export type DeferredVectorPut = PutOperation & { deferVector?: boolean };

/**
 * A search of a store with `rankedSearch`, the query's vector given by the caller (computed once
 * for the turn): a vector ranks with it and embeds nothing; `null` ranks lexically and embeds
 * nothing; left out, the store embeds the query itself.
 */
export type VectorSearchOperation = SearchOperation & { queryVector?: readonly number[] | null };

/** The names of `StoreSupports`. */
export type StoreCapability = keyof StoreSupports;

/**
 * The store port: a LangGraph `BaseStore` that declares what more it can do. Our engines
 * implement it whole; `storePortOf` (memory/store-io.ts) gives any plain `BaseStore` the same
 * face, with every flag false.
 */
export interface StorePort extends BaseStore {
  readonly supports: Readonly<StoreSupports>;
  /** How many items are stored in exactly `namespace` (not below it). */
  countNamespace(namespace: string[]): Promise<number>;
  /** Deletes every item whose namespace starts with `prefix` (which begins with a tenant); returns how many. */
  deleteNamespacePrefix(prefix: string[]): Promise<number>;
  /** The distinct first labels (tenants) of stored namespaces. */
  listTenants(): Promise<string[]>;
  /** Deletes full-text and vector rows whose item is gone; returns how many. */
  removeOrphanedIndexRows(): Promise<number>;
  /** Builds the search index of `prefix` now (after a write) rather than on the first query that needs it. */
  warmSearch(prefix: string[]): Promise<void>;
  /** Deletes every item whose TTL has run out (with its index rows); returns how many. */
  sweepExpiredItems(): Promise<number>;
  /** A page of the users of tenant label `tenant` (see `UserListQuery`), newest activity first. */
  listUsers(tenant: string, query: UserListQuery): Promise<StoredUserPage>;
  /**
   * Every transcript under `prefix` (the namespaces `[...prefix, <session label>, "messages"]` that
   * hold a live item), counted and dated without returning a message (see `StoredTranscript`).
   */
  listTranscripts(prefix: string[]): Promise<StoredTranscript[]>;
  /**
   * Computes and writes the vector of each live item at `keys` of `namespace` that is indexed and
   * has none (one written with `deferVector`), from the text the item holds. Writes only onto the
   * row it read: an item deleted, or rewritten (by any writer), since is left as it is — nothing
   * is stored again. Returns how many vectors it wrote (0 without embeddings). Throws when the
   * embeddings provider or the database fails; the items stay, found by text.
   */
  embedDeferred(namespace: string[], keys: readonly string[]): Promise<number>;
}

/**
 * Which users `listUsers` lists: those whose label starts with `labelPrefix` (or, with `exact`,
 * is it), newest activity first (ties by label), `limit` from `offset`. Labels are as stored
 * (`encodeLabel`'s); a user is one with at least one live item under `[tenant, "users", label]`.
 */
export interface UserListQuery {
  labelPrefix: string;
  exact: boolean;
  limit: number;
  offset: number;
}

/**
 * One user as a store counts it: its newest message's `createdAt` (else the last write to any of
 * its items; ISO time), its sessions with a stored transcript, its current facts (`validTo` null)
 * and its stored messages.
 */
export interface StoredUser {
  label: string;
  lastActivityAt: string;
  sessions: number;
  facts: number;
  messages: number;
}

/** A page of `listUsers`, with the number of users that matched in all. */
export interface StoredUserPage {
  users: StoredUser[];
  total: number;
}

/**
 * One transcript as a store counts it: its session label (as stored), its messages, the earliest and
 * latest `createdAt` among them, and the keys of its first message and of its first message with
 * `role` "user" (null when none): first by `createdAt`, then by key (both compared as stored bytes).
 */
export interface StoredTranscript {
  label: string;
  messages: number;
  firstAt: string;
  lastAt: string;
  firstKey: string;
  firstUserKey: string | null;
}

/** A checkpointer that lists its threads and prunes a thread's old checkpoints (what GC needs of one). */
export interface PruningCheckpointer {
  listThreadIds(): Promise<string[]>;
  pruneThread(threadId: string, keep: number, slack?: number): Promise<number>;
}
