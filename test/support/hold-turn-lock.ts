/**
 * One process of the crash tests: takes the turn lock of `threadId` on `backend` and starts a turn
 * that never ends, then prints {"held": true, "pid": …} and waits to be killed.
 * Usage: node --import tsx test/support/hold-turn-lock.ts <sqlite|redis|postgres> <file|prefix|url> <threadId> [leaseMs] [host]
 * `host` stands this holder on another machine (its pid then proves nothing to the test process).
 */
import Database from "better-sqlite3";
import pg from "pg";
import { createClient, type RedisClientType } from "redis";
import type { TurnLock } from "../../src/memory/ports/persistence.js";
import { postgresTurnLock } from "../../src/storage/postgres/turn-lock.js";
import { redisTurnLock } from "../../src/storage/redis/turn-lock.js";
import { sqliteTurnLock } from "../../src/storage/sqlite/turn-lock.js";
import { setLogLevel } from "../../src/logger.js";

setLogLevel("silent");
const [backend, target = "", threadId = "", leaseMs, host] = process.argv.slice(2);
const options = { leaseMs: leaseMs ? Number(leaseMs) : undefined, holder: host ? { host, pid: process.pid } : undefined };

async function open(): Promise<TurnLock> {
  if (backend === "sqlite") {
    const db = new Database(target);
    db.pragma("busy_timeout = 5000");
    return sqliteTurnLock(db, options);
  }
  if (backend === "redis") {
    const client = createClient({ url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" }) as RedisClientType;
    await client.connect();
    return redisTurnLock(client, { ...options, keyPrefix: target });
  }
  return postgresTurnLock(new pg.Pool({ connectionString: target, max: 2 }));
}

const lock = await open();
await lock.run(threadId, async () => {
  process.stdout.write(`${JSON.stringify({ held: true, pid: process.pid })}\n`);
  await new Promise(() => setInterval(() => undefined, 60_000)); // a turn that never ends
});
