import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../errors.js";
import { log } from "../logger.js";
import type { RetentionPolicy } from "./retention-policy.js";
import { applyRetention } from "./events.js";
import { DEFAULT_LIMITS } from "./limits.js";
import { decodeLabel } from "./namespaces.js";
import type { GcTarget } from "./ports/persistence.js";

export type { GcTarget } from "./ports/persistence.js";

/** Checkpoints kept per thread by default (`CHECKPOINT_KEEP`). */
export const DEFAULT_CHECKPOINT_KEEP = 20;

/** How to collect; each option left out takes the default of `DEFAULT_LIMITS` (as `CHECKPOINT_KEEP` and the service do). */
export interface GcOptions {
  /** Default: the current time. */
  now?: Date;
  /** Idle time after which a session's window goes (default 1800). */
  sessionTtlSeconds?: number;
  /** Checkpoints kept per thread (default 20). */
  checkpointKeep?: number;
  /** Event retention (default 365 days, 1,000 events per user). */
  retention?: RetentionPolicy;
  /**
   * Makes what an answered turn of the thread left undone (a due summary, when the process
   * stopped or was throttled before making it); true when it made something. Called under the
   * thread's turn lock, before the thread can expire. A memory graph's `finishUpkeep`.
   */
  upkeep?: (threadId: string) => Promise<boolean>;
}

/** What one collection did (snake_case: printed as JSON by `npm run gc`). */
export interface GcCounts {
  threads_scanned: number;
  sessions_expired: number;
  checkpoints_pruned: number;
  events_dropped: number;
  orphaned_index_rows: number;
  /** Store items whose TTL had run out, deleted (0 where the store has no TTL). */
  items_expired: number;
  /** Threads whose due summary this collection made (present when `upkeep` was given). */
  summaries_made?: number;
}

const PAGE = 100;

async function lastActiveAt(checkpointer: BaseCheckpointSaver, threadId: string): Promise<number | undefined> {
  const tuple = await checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
  const session = tuple?.checkpoint.channel_values.session as { lastActiveAt?: string | null } | undefined;
  const at = session?.lastActiveAt ? Date.parse(session.lastActiveAt) : NaN;
  return Number.isFinite(at) ? at : undefined;
}

/** Every [tenant, "users", user, "events"] namespace of one tenant, page by page. */
async function eventNamespaces(store: BaseStore, tenant: string): Promise<string[][]> {
  const found: string[][] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await store.listNamespaces({ prefix: [tenant, "users"], suffix: ["events"], maxDepth: 4, limit: PAGE, offset });
    found.push(...page.filter((ns) => ns.length === 4 && ns[3] === "events"));
    if (page.length < PAGE) return found;
  }
}

/**
 * Garbage collection, idempotent and safe while the service runs (each thread is handled under
 * the turn lock when one is given, and re-checked there):
 * 0. with `upkeep`, a summary an answered turn left due (the process died or was throttled after
 *    the reply) is made;
 * 1. a session idle past its TTL loses its checkpoint thread (window, session variables,
 *    node-scoped memory); its transcript, summaries, events and facts stay in the store, and its
 *    next turn rebuilds the window from them;
 * 2. every other thread keeps its newest `checkpointKeep` checkpoints (default 20; the newest, the
 *    one in use, always stays);
 * 3. every user's events are held to the retention policy (age and count);
 * 4. store items whose TTL ran out are deleted (`sweepExpiredItems`, where the target has it);
 * 5. index rows whose item is gone are deleted.
 * `from` is a GC target or what holds one (a memory graph's `persistence`, `openSqlite()`'s result).
 */
export async function collectGarbage(from: GcTarget | { gc: GcTarget | null }, options: GcOptions = {}): Promise<GcCounts> {
  const target = "gc" in from ? from.gc : from;
  if (!target) {
    throw new MemoryGraphError("GC_UNSUPPORTED", "this backend keeps nothing to collect (the memory backend, or your own persistence without a gc target)", {
      kind: "user",
    });
  }
  const now = options.now ?? new Date();
  const retention = options.retention ?? DEFAULT_LIMITS.retention;
  const keep = options.checkpointKeep ?? DEFAULT_CHECKPOINT_KEEP;
  const cutoff = now.getTime() - (options.sessionTtlSeconds ?? DEFAULT_LIMITS.sessionTtlSeconds) * 1000;
  const counts: GcCounts = { threads_scanned: 0, sessions_expired: 0, checkpoints_pruned: 0, events_dropped: 0, orphaned_index_rows: 0, items_expired: 0 };
  const upkeep = options.upkeep;
  if (upkeep) counts.summaries_made = 0;
  const locked = <T>(threadId: string, work: () => Promise<T>) => (target.lock ? target.lock.run(threadId, work) : work());

  for (const threadId of await target.listThreadIds()) {
    counts.threads_scanned += 1;
    await locked(threadId, async () => {
      // A summary left due is made first: an idle session's thread is about to go.
      if (upkeep && (await upkeep(threadId))) counts.summaries_made = (counts.summaries_made ?? 0) + 1;
      const at = await lastActiveAt(target.checkpointer, threadId);
      if (at !== undefined && at < cutoff) {
        await target.checkpointer.deleteThread(threadId);
        counts.sessions_expired += 1;
      } else {
        counts.checkpoints_pruned += await target.pruneThread(threadId, keep);
      }
    });
  }
  for (const tenant of await target.listTenants()) {
    for (const ns of await eventNamespaces(target.store, tenant)) {
      const scope = { tenantId: decodeLabel(tenant), userId: decodeLabel(ns[2] ?? "") };
      counts.events_dropped += await applyRetention(target.store, scope, retention, now);
    }
  }
  counts.items_expired = (await target.sweepExpiredItems?.()) ?? 0;
  counts.orphaned_index_rows = await target.removeOrphanedIndexRows();
  log.info("memory.gc", { ...counts });
  return counts;
}
