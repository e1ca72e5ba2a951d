/**
 * The streaming answers in flight, so that a shutdown whose grace runs out can end each with an
 * `error` event (the client may retry the same `message_id`) instead of cutting it mid-answer.
 */
export class OpenStreams {
  private readonly open = new Set<() => Promise<void>>();

  /** Registers a stream's way to end itself; returns the call that unregisters it. */
  add(end: () => Promise<void>): () => void {
    this.open.add(end);
    return () => this.open.delete(end);
  }

  /** How many streams are open. */
  get size(): number {
    return this.open.size;
  }

  /** Ends every open stream (each sends its last event and closes); resolves when all have, or after `withinMs`. */
  async endAll(withinMs: number): Promise<void> {
    const ends = [...this.open].map((end) => end().catch(() => undefined));
    this.open.clear();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, withinMs)));
    await Promise.race([Promise.all(ends), late]);
    clearTimeout(timer);
  }
}
