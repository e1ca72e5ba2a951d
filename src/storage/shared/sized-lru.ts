/** Bounds of a `SizedLru`. */
export interface LruBounds {
  /** Values kept at most. */
  maxEntries: number;
  /** The most the values' sizes (`sizeOf`) may add up to. */
  maxBytes: number;
}

/**
 * Values by key, least recently used first, within `maxEntries` and `maxBytes` (the sum of `sizeOf`
 * over the values, read whenever it is checked, so a value that grows in place — an index as writes
 * reach it — counts at its current size), beside the keys refused as too large to keep, which a
 * caller can ask about without measuring them again. The value just added always stays, even alone
 * past the bound. The engines' recall-index caches share it; each keeps only loading and coherence.
 * (lru-cache measures a value once, when it is set, and has no refused keys, hence this.)
 */
export class SizedLru<V> {
  private readonly map = new Map<string, V>();
  private readonly refused = new Set<string>();

  constructor(
    private readonly bounds: LruBounds,
    private readonly sizeOf: (value: V) => number,
  ) {}

  /** The value at `key`, now the most recently used; undefined when absent. */
  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, value);
    return value;
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
    this.map.delete(key);
    this.map.set(key, value);
    let bytes = this.bytes;
    for (const [oldest, old] of this.map) {
      if (oldest === key || (this.map.size <= this.bounds.maxEntries && bytes <= this.bounds.maxBytes)) break;
      this.map.delete(oldest);
      bytes -= this.sizeOf(old);
    }
  }

  delete(key: string): void {
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

  /** The sum of the values' current sizes. */
  get bytes(): number {
    let bytes = 0;
    for (const value of this.map.values()) bytes += this.sizeOf(value);
    return bytes;
  }

  clear(): void {
    this.map.clear();
    this.refused.clear();
  }

  clearRefused(): void {
    this.refused.clear();
  }
}
