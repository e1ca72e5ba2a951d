/**
 * A fixed-window request counter per key: at most `perMinute` requests in each wall-clock
 * minute. Windows of keys not seen in the current minute are dropped, so memory stays bounded by
 * the keys active this minute.
 */
export class RateLimiter {
  private windowStart = 0;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request of `key`; returns null when allowed, else the seconds until the next window. */
  take(key: string): number | null {
    if (this.perMinute <= 0) return null;
    const now = this.now();
    const start = now - (now % 60_000);
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.counts.clear();
    }
    const used = this.counts.get(key) ?? 0;
    if (used >= this.perMinute) return Math.max(1, Math.ceil((start + 60_000 - now) / 1000));
    this.counts.set(key, used + 1);
    return null;
  }
}
