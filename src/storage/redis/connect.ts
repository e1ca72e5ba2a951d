import { createClient, type RedisClientType } from "redis";
import { MemoryGraphError, messageOf } from "../../errors.js";
import { log } from "../../logger.js";

/** How `connectRedis` connects. */
export interface RedisConnectOptions {
  /** The first connection, retries included, gives up after this (default 5000 ms). */
  timeoutMs?: number;
  /** Log event of a connection error once connected (default `redis_error`). */
  errorEvent?: string;
}

/**
 * A node-redis client connected to `url`. The first connection gets `timeoutMs` in all and then
 * fails with REDIS_UNAVAILABLE — also when the server accepts but never answers like Redis;
 * its retries are logged at debug only. Once connected, a lost connection is retried for as long
 * as it takes (backoff up to about 1 s), logged once as a warning and once when it is back; meanwhile
 * commands fail at once (no offline queue).
 */
export async function connectRedis(url: string, options: RedisConnectOptions = {}): Promise<RedisClientType> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const deadline = Date.now() + timeoutMs;
  let connected = false;
  const client: RedisClientType = createClient({
    url,
    // While the connection is down, commands fail at once instead of queuing until it is back:
    // a caller (a turn) then decides what to do without the session store, in bounded time.
    disableOfflineQueue: true,
    socket: {
      connectTimeout: timeoutMs,
      reconnectStrategy: (retries: number, cause: Error) => {
        const delay = Math.min(2 ** retries * 50, 1000) + Math.floor(Math.random() * 200);
        return connected || Date.now() + delay < deadline ? delay : cause;
      },
    },
  });
  // Once connected, a lost connection is logged once (not once per retry) and its return once.
  let lost = false;
  client.on("error", (error: unknown) => {
    if (connected && !lost) log.warn(options.errorEvent ?? "redis_error", { error: messageOf(error) });
    else log.debug("redis_connect_retry", { error: messageOf(error) });
    lost = connected;
  });
  client.on("ready", () => {
    if (lost) log.info("redis_reconnected", {});
    lost = false;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          client.destroy();
          reject(new Error(`no answer within ${timeoutMs} ms (is it a Redis server, reachable from here?)`));
        }, timeoutMs);
      }),
    ]);
  } catch (cause) {
    if (client.isOpen) client.destroy();
    throw new MemoryGraphError("REDIS_UNAVAILABLE", `cannot connect to Redis: ${messageOf(cause)}`, { kind: "system", cause });
  } finally {
    clearTimeout(timer);
  }
  connected = true;
  return client;
}
