import { randomUUID } from "node:crypto";
import type { RedisClientType } from "redis";
import type { TurnLock } from "../../memory/ports/persistence.js";
import { KeyedLock } from "../shared/keyed-lock.js";
import { currentHolder, isProvablyGone } from "../shared/lease-holder.js";
import { acquire, DEFAULT_WAIT_MS, holdLease, tookOver, type LeaseLockOptions } from "../shared/lease-lock.js";

/** Redis is shared across machines: a short lease lets others in about a second after renewals stop. */
export const DEFAULT_REDIS_LEASE_MS = 1_500;

const RENEW_IF_OWNER = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";
const DELETE_IF_OWNER = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
const REPLACE_IF_HELD_BY =
  "if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3]) return 1 else return 0 end";

/** The holder a Redis lease value names, or null for a value not written as JSON (an older version's bare token). */
function holderOf(value: string): { host?: unknown; pid?: unknown } | null {
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed !== null && typeof parsed === "object" ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * Redis: `SET key value NX PX lease` per thread, the value naming this turn's token, host and pid;
 * the lease is renewed while the turn runs, and renewal, release and taking over from a holder
 * found gone act only when the key still holds the value seen (a Lua compare-and-set), so a turn
 * never frees a lock another took after its lease ran out.
 */
export function redisTurnLock(client: RedisClientType, options: LeaseLockOptions & { keyPrefix?: string } = {}): TurnLock {
  const local = new KeyedLock();
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
  const leaseMs = options.leaseMs ?? DEFAULT_REDIS_LEASE_MS;
  const prefix = options.keyPrefix ?? "mg";
  const holder = options.holder ?? currentHolder();
  return {
    run: (threadId, work) =>
      local.run(threadId, async () => {
        const key = `${prefix}:turn-lock:${threadId}`;
        const value = JSON.stringify({ token: randomUUID(), host: holder.host, pid: holder.pid });
        await acquire(threadId, waitMs, async () => {
          if ((await client.set(key, value, { condition: "NX", expiration: { type: "PX", value: leaseMs } })) === "OK") return true;
          const previous = await client.get(key);
          const previousHolder = previous === null ? null : holderOf(previous);
          if (previous === null || !isProvablyGone(previousHolder)) return false;
          const replaced = await client.eval(REPLACE_IF_HELD_BY, { keys: [key], arguments: [previous, value, String(leaseMs)] });
          if (replaced !== 1) return false;
          tookOver("redis", previousHolder ?? {});
          return true;
        });
        return holdLease(
          leaseMs,
          async () => (await client.eval(RENEW_IF_OWNER, { keys: [key], arguments: [value, String(leaseMs)] })) === 1,
          async () => void (await client.eval(DELETE_IF_OWNER, { keys: [key], arguments: [value] })),
          work,
        );
      }),
  };
}
