import { InMemoryStore, type Item, type Operation, type OperationResults, type SearchItem } from "@langchain/langgraph-checkpoint";
import { PLAIN_STORE_SUPPORTS, type StoreSupports } from "../../memory/ports/store.js";
import { ttlMinutesOf, validateTtlFields } from "../shared/store-common.js";
import { expiresAtOf, refreshesOnRead, TtlSweeper, validateTtlConfig, type StoreTtlConfig } from "../shared/ttl.js";

/** When one item expires, and by how much a refreshing read pushes that back. */
interface Expiry {
  namespace: string[];
  key: string;
  expiresAt: number;
  ttlMinutes: number;
}

const idOf = (namespace: readonly string[], key: string) => JSON.stringify([namespace, key]);

/**
 * LangGraph's `InMemoryStore` with LangGraph's store TTL, which it lacks: a put's `ttl` (minutes;
 * null for none) else `ttl.defaultTtl`; items expired are deleted before any operation runs, so
 * no get, search or list sees them; a get or search pushes back the expiry of what it returns by
 * its TTL (`refreshTtl`, else `ttl.refreshOnRead`, default true). Everything else is
 * `InMemoryStore`'s own behaviour (no tenant check, no ranking: recall ranks its items itself;
 * `listNamespaces` still names a namespace whose items all went, as after any delete).
 */
export class TtlMemoryStore extends InMemoryStore {
  readonly supports: Readonly<StoreSupports> = Object.freeze({ ...PLAIN_STORE_SUPPORTS, ttl: true });
  private readonly ttl: StoreTtlConfig | undefined;
  private readonly expiries = new Map<string, Expiry>();
  /** No item expires before this (a lower bound: a refresh only moves expiries later). */
  private nextExpiry = Infinity;
  private readonly sweeper = new TtlSweeper("memory", () => this.sweepExpiredItems());

  constructor(options: ConstructorParameters<typeof InMemoryStore>[0] & { ttl?: StoreTtlConfig } = {}) {
    super(options);
    validateTtlConfig(options.ttl);
    this.ttl = options.ttl;
    this.sweeper.start(this.ttl);
  }

  override async get(namespace: string[], key: string, options?: { refreshTtl?: boolean }): Promise<Item | null> {
    return (await this.batch([{ namespace, key, refreshTtl: options?.refreshTtl }]))[0] ?? null;
  }

  override async put(namespace: string[], key: string, value: Record<string, unknown>, index?: false | string[], options?: { ttl?: number | null }): Promise<void> {
    await this.batch([{ namespace, key, value, index, ttl: options?.ttl }]);
  }

  override async search(namespacePrefix: string[], options: Parameters<InMemoryStore["search"]>[1] & { refreshTtl?: boolean } = {}): Promise<SearchItem[]> {
    const { filter, limit = 10, offset = 0, query, refreshTtl } = options;
    return (await this.batch([{ namespacePrefix, filter, limit, offset, query, refreshTtl }]))[0] ?? [];
  }

  override async batch<Op extends readonly Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    operations.forEach(validateTtlFields);
    await this.sweepExpiredItems();
    const results = await super.batch(operations);
    const now = Date.now();
    operations.forEach((op, i) => {
      if ("value" in op) this.noteWrite(op.namespace, op.key, op.value === null ? null : ttlMinutesOf(op, this.ttl), now);
      else if (!("matchConditions" in op) && refreshesOnRead(op, this.ttl)) this.refresh(results[i] as unknown as Item | Item[] | null, now);
    });
    return results;
  }

  /** Deletes every item whose TTL has run out; returns how many (LangGraph's `PostgresStore.sweepExpiredItems`). */
  async sweepExpiredItems(): Promise<number> {
    const now = Date.now();
    if (now < this.nextExpiry) return 0;
    const expired = [...this.expiries.values()].filter((e) => e.expiresAt <= now);
    for (const e of expired) this.expiries.delete(idOf(e.namespace, e.key));
    this.nextExpiry = [...this.expiries.values()].reduce((soonest, e) => Math.min(soonest, e.expiresAt), Infinity);
    if (expired.length > 0) await super.batch(expired.map((e) => ({ namespace: e.namespace, key: e.key, value: null })));
    return expired.length;
  }

  /** Ends the store's own sweeps (`ttl.sweepIntervalMinutes`). */
  override stop(): void {
    this.sweeper.stop();
  }

  private noteWrite(namespace: string[], key: string, ttlMinutes: number | null, now: number): void {
    const id = idOf(namespace, key);
    const expiresAt = expiresAtOf(ttlMinutes, now);
    if (ttlMinutes === null || expiresAt === null) {
      this.expiries.delete(id);
      return;
    }
    this.expiries.set(id, { namespace, key, expiresAt, ttlMinutes });
    this.nextExpiry = Math.min(this.nextExpiry, expiresAt);
  }

  private refresh(result: Item | Item[] | null, now: number): void {
    for (const item of Array.isArray(result) ? result : result ? [result] : []) {
      const expiry = this.expiries.get(idOf(item.namespace, item.key));
      if (expiry) expiry.expiresAt = expiresAtOf(expiry.ttlMinutes, now) ?? expiry.expiresAt;
    }
  }
}
