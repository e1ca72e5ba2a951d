import { createRequire } from "node:module";
import type * as RateLimiterFlexible from "rate-limiter-flexible";
import type { RateLimiterAbstract, RateLimiterRes } from "rate-limiter-flexible";
import { messageOf } from "../errors.js";
import { log } from "../logger.js";

/**
 * rate-limiter-flexible (36 module files), loaded when a limiter is made — a service without a rate
 * limit never loads it. A CommonJS package: `require` gives the instance an `import` of it gets.
 */
const rateLimiterFlexible = () => createRequire(import.meta.url)("rate-limiter-flexible") as typeof RateLimiterFlexible;

/** What one request's count says: whether it may go on, and what the RateLimit headers tell the caller. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Requests per window. */
  limit: number;
  /** Requests left in this window (0 once over). */
  remaining: number;
  /** Seconds until this window ends (at least 1). */
  resetSeconds: number;
}

/** Counts requests per key: `perMinute` of them in each window, then none until it ends. */
export interface RequestLimiter {
  readonly limit: number;
  readonly windowSeconds: number;
  take(key: string): Promise<RateLimitDecision>;
}

/**
 * A limiter over a rate-limiter-flexible counter: `shared` (Redis, Postgres or SQLite, see
 * app/rate-limit-store.ts) makes the limit hold across every worker and instance; without it the
 * count is this process's own. Each key has fixed windows that begin with its first request.
 * When the shared counter fails (its storage does not answer), the request is counted in the
 * process instead — on purpose, logged once per outage, so a counter outage neither lets every
 * request through nor refuses them all; the shared count is used again as soon as it answers.
 */
export function requestLimiter(limit: number, shared?: RateLimiterAbstract, windowSeconds = 60): RequestLimiter {
  const { RateLimiterMemory, RateLimiterRes } = rateLimiterFlexible();
  const local = new RateLimiterMemory({ points: limit, duration: windowSeconds });
  let failing = false;
  const decide = (res: RateLimiterRes, allowed: boolean): RateLimitDecision => ({
    allowed,
    limit,
    remaining: allowed ? res.remainingPoints : 0,
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  });
  const consume = async (counter: RateLimiterAbstract, key: string): Promise<RateLimitDecision> => {
    try {
      return decide(await counter.consume(key), true);
    } catch (outcome) {
      if (outcome instanceof RateLimiterRes) return decide(outcome, false);
      throw outcome;
    }
  };
  return {
    limit,
    windowSeconds,
    take: async (key) => {
      if (!shared) return consume(local, key);
      try {
        const decision = await consume(shared, key);
        if (failing) log.info("rate_limit.store_recovered", {});
        failing = false;
        return decision;
      } catch (error) {
        if (!failing) log.warn("rate_limit.store_failed", { error: messageOf(error), message: "counting requests in this process until the shared counter answers" });
        failing = true;
        return consume(local, key);
      }
    },
  };
}
