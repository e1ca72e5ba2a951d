import "./env-log-level.js";

/**
 * `memory-graph/retention`: forgetting and garbage collection on any backend. `forgetUser` and
 * `forgetSession` take a checkpointer and store (a memory graph's `persistence`); `collectGarbage`
 * takes a GC target or what holds one (`persistence`, `openSqlite()`'s result).
 */
export {
  forgetSession,
  forgetUser,
  type ForgetCounts,
  type ForgetTarget,
  type SessionForgetCounts,
} from "../memory/forget.js";
export { collectGarbage, DEFAULT_CHECKPOINT_KEEP, type GcCounts, type GcOptions, type GcTarget } from "../memory/gc.js";
export { DEFAULT_RETENTION, type RetentionPolicy } from "../memory/retention-policy.js";
