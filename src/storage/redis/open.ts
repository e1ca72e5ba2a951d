import { log } from "../../logger.js";
import type { Persistence } from "../../memory/ports/persistence.js";
import { CONNECT_TIMEOUT_MS, unreachable } from "../shared/open-checks.js";

/** What the redis engine needs: its URL, the session TTL, and how to open the long-term side. */
export interface RedisOpenOptions {
  url: string;
  /** Session TTL: every key of a thread expires by itself this long after its last write. */
  sessionTtlSeconds?: number;
  /** Opens the engine that keeps long-term memory (Redis keeps sessions only); closed with this one. */
  openLongTerm: () => Promise<Persistence>;
  /** Names the long-term engine in the log line. */
  longTermKind: string;
}

/**
 * Keeps sessions (checkpoints and the turn lock) in Redis, expiring by TTL, and long-term memory
 * in the engine `openLongTerm` opens; garbage collection is that engine's (sessions expire by
 * themselves). A Redis that does not answer fails with STORAGE_UNREACHABLE naming REDIS_URL.
 */
export async function openRedis(options: RedisOpenOptions): Promise<Persistence> {
  const [{ RedisCheckpointer }, { redisTurnLock }] = await Promise.all([import("./checkpointer.js"), import("./turn-lock.js")]);
  const { url } = options;
  const checkpointer = await RedisCheckpointer.fromUrl(url, { ttlSeconds: options.sessionTtlSeconds, connectTimeoutMs: CONNECT_TIMEOUT_MS }).catch(
    (cause: unknown) => {
      throw unreachable("Redis", "REDIS_URL", url, (cause as { cause?: unknown }).cause ?? cause);
    },
  );
  let longTerm: Persistence;
  try {
    longTerm = await options.openLongTerm();
  } catch (error) {
    await checkpointer.close();
    throw error;
  }
  log.info("persistence_opened", { backend: "redis", longTerm: options.longTermKind });
  return {
    kind: "redis",
    // The lock lives beside the sessions; collection works on the long-term engine's checkpoints.
    traits: { sharedAcrossProcesses: true, turnLockIn: "session_store", prunedCheckpointsIn: "memory_store" },
    checkpointer,
    store: longTerm.store,
    turnLock: redisTurnLock(checkpointer.client),
    // Users' locks live where their long-term memory does, which forgetting deletes.
    userLock: longTerm.userLock,
    // Sessions expire by their own TTL; the long-term store's retention is collected where it lives.
    gc: longTerm.gc,
    dropSessionHistory: (threadId) => checkpointer.pruneThread(threadId, 1),
    ping: async () => {
      await Promise.all([checkpointer.client.ping(), longTerm.ping()]);
    },
    dependencies: [
      { name: "session_store", engine: "redis", ping: async () => void (await checkpointer.client.ping()) },
      { name: "memory_store", engine: longTerm.kind, ping: () => longTerm.ping() },
    ],
    close: async () => {
      await Promise.all([checkpointer.close(), longTerm.close()]);
    },
  };
}
