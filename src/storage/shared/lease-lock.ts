import { MemoryGraphError, messageOf } from "../../errors.js";
import { log } from "../../logger.js";
import type { LeaseHolder } from "./lease-holder.js";

/** How long a turn waits for its thread before failing with `TURN_LOCK_TIMEOUT`. */
export interface TurnLockOptions {
  waitMs?: number;
}

/**
 * Lease-based locks (SQLite, Redis). The holder renews its lease every third of `leaseMs` while the
 * turn runs. A lease whose holder is provably gone (see `isProvablyGone`) is taken over at once;
 * any other outlives a crashed holder by at most `leaseMs`.
 */
export interface LeaseLockOptions extends TurnLockOptions {
  leaseMs?: number;
  /** Who this process is, as recorded in its leases (default: `currentHolder()`). */
  holder?: LeaseHolder;
}

/** How long a turn waits for its thread by default. */
export const DEFAULT_WAIT_MS = 60_000;

/** TURN_LOCK_TIMEOUT: another turn of the thread held it for longer than the wait. */
export function timeout(waitMs: number, cause?: unknown): MemoryGraphError {
  return new MemoryGraphError("TURN_LOCK_TIMEOUT", `another turn of this session held it for over ${waitMs} ms`, {
    kind: "system",
    cause,
  });
}

/** TURN_LOCK_TIMEOUT of a user's lock: turns of the user (or forgetting them) held it for longer than the wait. */
export function userLockTimeout(waitMs: number, cause?: unknown): MemoryGraphError {
  return new MemoryGraphError("TURN_LOCK_TIMEOUT", `the user's turns, or forgetting the user, held the user's lock for over ${waitMs} ms`, {
    kind: "system",
    cause,
  });
}

/** Polls `tryAcquire` with jittered backoff until it succeeds or `waitMs` passes. */
export async function acquire(threadId: string, waitMs: number, tryAcquire: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (let delay = 2; ; delay = Math.min(delay * 2, 50)) {
    if (await tryAcquire()) return;
    if (Date.now() >= deadline) throw timeout(waitMs);
    await new Promise((resolve) => setTimeout(resolve, delay / 2 + Math.random() * delay));
  }
}

/**
 * Runs `work` while renewing a lease every third of `leaseMs`, then releases it. `renew` answers
 * whether the lease was still this turn's: one that ran out (the process stalled past it) and was
 * taken is reported, since another turn of the thread may now run beside this one.
 */
export async function holdLease<T>(leaseMs: number, renew: () => Promise<boolean>, release: () => Promise<void>, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => {
    renew().then(
      (held) => held || log.error("turn_lock.lease_lost", { lease_ms: leaseMs }),
      (error: unknown) => log.warn("turn_lock.renew_failed", { error: messageOf(error) }),
    );
  }, Math.max(10, Math.floor(leaseMs / 3)));
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
    await release().catch((error: unknown) => log.warn("turn_lock.release_failed", { error: messageOf(error) }));
  }
}

/** Logs a lease taken over from a holder found gone. */
export function tookOver(backend: string, previous: { host?: unknown; pid?: unknown }): void {
  log.warn("turn_lock.taken_over", { backend, previous_host: previous.host, previous_pid: previous.pid, reason: "holder_gone" });
}
