import type { UserLock } from "../../memory/ports/persistence.js";

interface Waiter {
  exclusive: boolean;
  admit: () => void;
}

interface KeyState {
  readers: number;
  writing: boolean;
  queue: Waiter[];
}

/**
 * A user lock of this process alone (memory engine, a persistence brought to `createMemoryGraph`):
 * readers share it, a writer holds it alone, and asks are admitted in order, so a shared ask that
 * comes after an exclusive one waits for it. Keys with nothing held or queued are forgotten.
 */
export function inProcessUserLock(): UserLock {
  const keys = new Map<string, KeyState>();

  const admitWaiting = (key: string, state: KeyState) => {
    for (let next = state.queue[0]; next; next = state.queue[0]) {
      if (state.writing || (next.exclusive && state.readers > 0)) break;
      state.queue.shift();
      if (next.exclusive) state.writing = true;
      else state.readers += 1;
      next.admit();
    }
    if (!state.writing && state.readers === 0 && state.queue.length === 0) keys.delete(key);
  };

  const hold = async <T>(key: string, exclusive: boolean, work: () => Promise<T>): Promise<T> => {
    let state = keys.get(key);
    if (!state) keys.set(key, (state = { readers: 0, writing: false, queue: [] }));
    const held = state;
    await new Promise<void>((admit) => {
      held.queue.push({ exclusive, admit });
      admitWaiting(key, held);
    });
    try {
      return await work();
    } finally {
      if (exclusive) held.writing = false;
      else held.readers -= 1;
      admitWaiting(key, held);
    }
  };

  return {
    shared: (key, work) => hold(key, false, work),
    exclusive: (key, work) => hold(key, true, work),
  };
}
