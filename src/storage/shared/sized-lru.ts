import { MemoryGraphError } from "../../errors.js";
import { log } from "../../logger.js";

/** Bounds of a `SizedLru`. */
export interface LruBounds {
  /** Values kept at most. */
  maxEntries: number;
  /** The most the values' sizes (`sizeOf`) may add up to. */
  maxBytes: number;
  /**
   * The process's resident memory (RSS) past which the LRU gives memory back even within `maxBytes`
   * (see `SizedLru`); 0 or absent: no such check.
   */
  maxRss?: number;
}

/**
 * What an entry point sets of an engine's recall index cache (RECALL_CACHE_MB, RECALL_CACHE_MAX_RSS_MB):
 * the bytes its indexes may hold by their own estimate (`RecallIndex.bytes`), and the process RSS
 * past which it gives memory back (0: none).
 */
export interface RecallCacheBounds {
  maxCachedBytes?: number;
  maxRss?: number;
}

/** Throws INVALID_INPUT unless the bounds given are integers ≥ 0. */
export function validateCacheBounds(owner: string, bounds: RecallCacheBounds | undefined): void {
  for (const [name, value] of Object.entries(bounds ?? {})) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 0)) {
      throw new MemoryGraphError("INVALID_INPUT", `${owner}: indexCache.${name} must be an integer ≥ 0, not ${String(value)}`, { kind: "user", field: "indexCache" });
    }
  }
}

/**
 * 128 MiB of index memory by the indexes' estimate: with eviction's churn and V8's headroom the
 * process grows by about 1.5× that, so 10,000 users served keep a service near 350 MB of RSS
 * (bench:recall-users, docs/operations.md).
 */
export const DEFAULT_RECALL_CACHE_BYTES = 128 * 1024 * 1024;

/** How a `SizedLru` reads the process's RSS and the time (tests give their own). */
export interface RssProbe {
  rss(): number;
  now(): number;
}

const processProbe: RssProbe = { rss: () => process.memoryUsage.rss(), now: () => Date.now() };
/** Over `maxRss`: keep this share of the values' bytes; at most one such shrink per `SHRINK_EVERY_MS`, so a collection can return what was let go before the next one. */
const SHRINK_TO = 0.75;
const SHRINK_EVERY_MS = 5000;
/** Under this share of `maxRss`, a shrunk budget grows back a tenth per `SHRINK_EVERY_MS` towards `maxBytes`. */
const REGROW_BELOW = 0.85;

/**
 * Values by key, least recently used first, within `maxEntries` and `maxBytes` (the sum of `sizeOf`
 * over the values), beside the keys refused as too large to keep, which a caller can ask about
 * without measuring them again. The value just added always stays, even alone past the bound. The
 * engines' recall-index caches share it; each keeps only loading and coherence.
 *
 * The sum is kept as values come and go, each measured when set, got or `remeasure`d: a value that
 * grows in place (an index as writes reach it) counts at its size as of the last of these, and its
 * owner remeasures it after changing it. Summing every value on each `set` instead cost a user's
 * first search 0.14 ms with 119 LongMemEval users cached (a CPU profile), and grew with the entries
 * held (up to 4,096 by default). (lru-cache measures a value once, when it is set, and has no
 * refused keys, hence this.)
 *
 * `sizeOf` is an estimate, and the process holds more than it says (V8's heap keeps room beyond what
 * is live, freed memory is not all given back at once), so with `maxRss` each `set` also reads the
 * process's RSS: past `maxRss`, the byte budget drops to three quarters of what the values hold and
 * the least recently used go until within it (logged as recall_cache_shrunk), at most once per 5 s
 * so that a garbage collection can show its effect before the next shrink; while RSS stays under
 * 85% of `maxRss`, the budget grows back by a tenth every 5 s up to `maxBytes`.
 */
export class SizedLru<V> {
  private readonly map = new Map<string, V>();
  /** Each value's size when last measured, by key (the order is `map`'s alone). */
  private readonly sizes = new Map<string, number>();
  private readonly refused = new Set<string>();
  /** The sum of `sizes`. */
  private total = 0;
  /** The byte bound in force: `maxBytes`, or less after RSS passed `maxRss`. */
  private budget: number;
  private budgetChangedAt = -Infinity;

  constructor(
    private readonly bounds: LruBounds,
    private readonly sizeOf: (value: V) => number,
    private readonly probe: RssProbe = processProbe,
  ) {
    this.budget = bounds.maxBytes;
  }

  /** The byte bound in force (`maxBytes` unless RSS passed `maxRss`). */
  get byteBudget(): number {
    return this.budget;
  }

  /** The value at `key`, now the most recently used; undefined when absent. */
  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, value);
    this.measure(key, value);
    return value;
  }

  /** Measures the value at `key` again, after its owner changed it in place. */
  remeasure(key: string): void {
    const value = this.map.get(key);
    if (value !== undefined) this.measure(key, value);
  }

  private measure(key: string, value: V): void {
    const size = this.sizeOf(value);
    this.total += size - (this.sizes.get(key) ?? 0);
    this.sizes.set(key, size);
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  /** Whether `key` was refused (`refuse`) since the last `clear`/`clearRefused`. */
  isRefused(key: string): boolean {
    return this.refused.has(key);
  }

  refuse(key: string): void {
    this.refused.add(key);
  }

  /** Adds `value` as the most recently used, then evicts the least recently used others until within bounds. */
  set(key: string, value: V): void {
    this.delete(key);
    this.map.set(key, value);
    this.measure(key, value);
    const bytes = this.evictPast(key);
    if (this.bounds.maxRss) this.answerToRss(key, bytes, this.bounds.maxRss);
  }

  /** Evicts the least recently used values but `keep` until within bounds; returns the bytes left. */
  private evictPast(keep: string): number {
    for (const oldest of this.map.keys()) {
      if (oldest === keep || (this.map.size <= this.bounds.maxEntries && this.total <= this.budget)) break;
      this.delete(oldest);
    }
    return this.total;
  }

  private answerToRss(keep: string, bytes: number, maxRss: number): void {
    const now = this.probe.now();
    if (now - this.budgetChangedAt < SHRINK_EVERY_MS) return;
    const rss = this.probe.rss();
    if (rss > maxRss) {
      this.budget = Math.floor(bytes * SHRINK_TO);
      this.budgetChangedAt = now;
      const before = this.map.size;
      const left = this.evictPast(keep);
      log.warn("recall_cache_shrunk", { rss_mb: mb(rss), max_rss_mb: mb(maxRss), budget_mb: mb(this.budget), evicted: before - this.map.size, held_mb: mb(left) });
    } else if (this.budget < this.bounds.maxBytes && rss < maxRss * REGROW_BELOW) {
      this.budget = Math.min(this.bounds.maxBytes, Math.ceil(this.budget * 1.1) + 1);
      this.budgetChangedAt = now;
    }
  }

  delete(key: string): void {
    this.total -= this.sizes.get(key) ?? 0;
    this.sizes.delete(key);
    this.map.delete(key);
  }

  /** Keys and values, least recently used first. */
  entries(): IterableIterator<[string, V]> {
    return this.map.entries();
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }

  get size(): number {
    return this.map.size;
  }

  /** Whether it holds no value and no refused key. */
  get isEmpty(): boolean {
    return this.map.size === 0 && this.refused.size === 0;
  }

  /** The sum of the values' sizes, each as last measured. */
  get bytes(): number {
    return this.total;
  }

  clear(): void {
    this.map.clear();
    this.sizes.clear();
    this.total = 0;
    this.refused.clear();
  }

  clearRefused(): void {
    this.refused.clear();
  }
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10;
