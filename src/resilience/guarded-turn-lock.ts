import type { StorageDependency } from "../errors.js";
import { log } from "../logger.js";
import type { DependencyHealth } from "./dependency-health.js";
import { isStorageFailure, withinStorageTimeout } from "./storage-failure.js";
import type { TurnLock, UserLock } from "../memory/ports/persistence.js";
import { KeyedLock } from "../storage/shared/keyed-lock.js";

type Acquisition = "acquired" | "failed" | "slow";

/**
 * A turn lock whose storage may go away. Waiting for a thread another turn holds is fine however
 * long the lock allows; but when the lock is not taken within the storage timeout, its storage is
 * pinged, and a storage that does not answer ends the wait. Then, and whenever `dependency` is
 * known down: with `localWhenDown` (a lock kept in the session store, i.e. Redis) the turn runs
 * under this process's own lock (one writer per thread in this process; across processes, a
 * degraded turn rebuilds its session from long-term memory and takes nothing from the session
 * store); otherwise the turn is refused as the dependency's unavailable error.
 */
export function guardTurnLock(
  lock: TurnLock,
  options: { health: DependencyHealth; timeoutMs: number; dependency: StorageDependency; ping: () => Promise<void>; localWhenDown: boolean },
): TurnLock {
  const local = new KeyedLock();
  const { health, dependency } = options;
  const withoutLock = <T>(threadId: string, work: () => Promise<T>, cause?: unknown): Promise<T> => {
    if (!options.localWhenDown) throw health.unavailable(dependency, cause);
    log.debug("turn_lock.local", { dependency });
    return local.run(threadId, work);
  };
  return {
    run: async <T>(threadId: string, work: () => Promise<T>): Promise<T> => {
      if (!health.admits(dependency)) return withoutLock(threadId, work);
      let abandoned = false;
      let acquired!: () => void;
      const taken = new Promise<Acquisition>((resolve) => (acquired = () => resolve("acquired")));
      const running = lock.run(threadId, async () => {
        acquired();
        // A wait given up on: the lock came after all, and is handed straight back.
        return abandoned ? (undefined as T) : work();
      });
      const failed = running.then(
        () => "acquired" as const,
        () => "failed" as const,
      );
      for (;;) {
        let timer: NodeJS.Timeout | undefined;
        const slow = new Promise<Acquisition>((resolve) => (timer = setTimeout(() => resolve("slow"), options.timeoutMs)));
        const state = await Promise.race([taken, failed, slow]);
        clearTimeout(timer);
        if (state === "acquired") return running;
        if (state === "failed") {
          const error = await running.then(
            () => undefined,
            (cause: unknown) => cause,
          );
          if (!isStorageFailure(error)) throw error;
          health.reportFailure(dependency, error);
          return withoutLock(threadId, work, error);
        }
        const answers = await withinStorageTimeout(options.ping(), options.timeoutMs).then(
          () => true,
          (error: unknown) => (health.reportFailure(dependency, error), false),
        );
        if (answers) continue;
        abandoned = true;
        void running.catch(() => undefined);
        return withoutLock(threadId, work);
      }
    },
  };
}

/**
 * A user lock (in the memory store) whose storage may go away, guarded as `guardTurnLock` guards a
 * turn lock: a wait that outlasts the storage timeout pings the store and goes on while it answers.
 * While the store is down, a turn's shared hold gives way to this process's own lock with
 * `localWhenDown` (where the turn may run on without long-term memory), or is refused; forgetting
 * is always refused then (it cannot delete anyway).
 */
export function guardUserLock(lock: UserLock, options: Parameters<typeof guardTurnLock>[1]): UserLock {
  const shared = guardTurnLock({ run: (key, work) => lock.shared(key, work) }, options);
  const exclusive = guardTurnLock({ run: (key, work) => lock.exclusive(key, work) }, { ...options, localWhenDown: false });
  return { shared: (key, work) => shared.run(key, work), exclusive: (key, work) => exclusive.run(key, work) };
}
