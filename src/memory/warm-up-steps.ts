/** How a warm-up runs: `idle()` says whether no request is being served; `signal` stops it between steps. */
export interface WarmUpOptions {
  /** How often a waiting warm-up asks `idle()` again, in ms (default 50). */
  pollMs?: number;
  signal?: AbortSignal;
}

/**
 * Runs `steps` one at a time, each in a macrotask of its own and only while `idle()` says no
 * request is being served: a request that arrives waits for at most the one step already running,
 * never for the rest. Resolves with the ms the steps took (CPU on the main thread; an asynchronous
 * step's ms include what it waited for), once all have run or `signal` stopped it.
 */
export async function runWarmUp(steps: Iterable<() => void | Promise<void>>, idle: () => boolean, options: WarmUpOptions = {}): Promise<number> {
  const pollMs = options.pollMs ?? 50;
  let spent = 0;
  for (const step of steps) {
    while (!idle()) {
      if (options.signal?.aborted) return Math.round(spent);
      // Unref'd: a warm-up never keeps a process alive.
      await new Promise((resolve) => setTimeout(resolve, pollMs).unref());
    }
    if (options.signal?.aborted) return Math.round(spent);
    const started = performance.now();
    await step();
    spent += performance.now() - started;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return Math.round(spent);
}
