/**
 * Serialises work per key inside one process: two turns of the same session never interleave.
 * Keys with nothing queued are forgotten, so the map stays as small as the work in flight.
 */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    try {
      await previous;
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** How many keys have work queued or running. */
  get size(): number {
    return this.tails.size;
  }
}
