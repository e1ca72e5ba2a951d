import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { createClient, type RedisClientType } from "redis";
import { afterAll, describe, expect, it } from "vitest";
import { currentHolder } from "../../src/storage/shared/lease-holder.js";
import type { TurnLock } from "../../src/memory/ports/persistence.js";
import { redisTurnLock } from "../../src/storage/redis/turn-lock.js";
import { sqliteTurnLock } from "../../src/storage/sqlite/turn-lock.js";
import { setLogLevel, setLogSink } from "../../src/logger.js";

/**
 * Two lock instances with connections of their own stand for two processes: work on one thread
 * never overlaps, whichever instance runs it; other threads are not held up.
 */
async function overlapOf(locks: TurnLock[], threadId: string, rounds: number): Promise<{ maxActive: number; order: number[] }> {
  let active = 0;
  let maxActive = 0;
  const order: number[] = [];
  await Promise.all(
    Array.from({ length: rounds }, (_, i) =>
      locks[i % locks.length]!.run(threadId, async () => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(i);
        active -= 1;
      }),
    ),
  );
  return { maxActive, order };
}

describe("cross-process turn locks", () => {
  const clients: RedisClientType[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.quit()));
  });

  it("Redis: one writer per thread across two clients", async () => {
    for (let i = 0; i < 2; i += 1) {
      const client = createClient({ url: "redis://127.0.0.1:6379" }) as RedisClientType;
      await client.connect();
      clients.push(client);
    }
    const prefix = `mg-test-${randomUUID().slice(0, 8)}`;
    const locks = clients.map((client) => redisTurnLock(client, { keyPrefix: prefix, leaseMs: 2_000 }));
    const { maxActive, order } = await overlapOf(locks, "t/u/s", 12);
    expect(maxActive).toBe(1);
    expect(order).toHaveLength(12);
    expect(await clients[0]!.keys(`${prefix}:*`)).toEqual([]);
  });

  it("SQLite: one writer per thread across two connections to one file", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-lock-"));
    const file = path.join(dir, "m.db");
    const dbs = [new Database(file), new Database(file)];
    for (const db of dbs) db.pragma("busy_timeout = 5000");
    const locks = dbs.map((db) => sqliteTurnLock(db, { leaseMs: 2_000 }));
    const { maxActive, order } = await overlapOf(locks, "t/u/s", 12);
    expect(maxActive).toBe(1);
    expect(order).toHaveLength(12);
    const other = await Promise.all([locks[0]!.run("t/u/a", async () => "a"), locks[1]!.run("t/u/b", async () => "b")]);
    expect(other).toEqual(["a", "b"]);
    for (const db of dbs) db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("SQLite: a crashed holder's expired lease is taken over; a live one makes the turn time out", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-lock-"));
    const db = new Database(path.join(dir, "m.db"));
    const lock = sqliteTurnLock(db, { leaseMs: 2_000, waitMs: 100 });
    const insert = db.prepare("INSERT INTO turn_locks (thread_id, token, expires_at) VALUES (?, 'crashed', ?)");
    insert.run("t/u/old", Date.now() - 1);
    insert.run("t/u/live", Date.now() + 60_000);
    expect(await lock.run("t/u/old", async () => db.prepare("SELECT token FROM turn_locks WHERE thread_id = 't/u/old'").get())).not.toEqual({
      token: "crashed",
    });
    await expect(lock.run("t/u/live", async () => "ran")).rejects.toMatchObject({ code: "TURN_LOCK_TIMEOUT" });
    expect(db.prepare("SELECT thread_id, token FROM turn_locks ORDER BY thread_id").all()).toEqual([{ thread_id: "t/u/live", token: "crashed" }]);
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("SQLite: a table made before holders were recorded gains their columns; each lease names its holder", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-lock-"));
    const db = new Database(path.join(dir, "m.db"));
    db.exec("CREATE TABLE turn_locks (thread_id TEXT PRIMARY KEY, token TEXT NOT NULL, expires_at INTEGER NOT NULL)");
    const locks = [sqliteTurnLock(db), sqliteTurnLock(db)]; // the second finds the columns there
    const seen = await locks[1]!.run("t/u/s", async () => db.prepare("SELECT host, pid FROM turn_locks").get());
    expect(seen).toEqual({ host: currentHolder().host, pid: process.pid });
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("SQLite: a holder whose lease another took says so at its next renewal", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-lock-"));
    const db = new Database(path.join(dir, "m.db"));
    const logged: string[] = [];
    setLogLevel("warn");
    setLogSink((line) => logged.push((JSON.parse(line) as { event: string }).event));
    await sqliteTurnLock(db, { leaseMs: 300 }).run("t/u/s", async () => {
      db.prepare("UPDATE turn_locks SET token = 'another'").run();
      await new Promise((resolve) => setTimeout(resolve, 250));
    });
    expect(logged).toContain("turn_lock.lease_lost");
    setLogLevel("silent");
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
