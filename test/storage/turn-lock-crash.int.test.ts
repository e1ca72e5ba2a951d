import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { createClient, type RedisClientType } from "redis";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TurnLock } from "../../src/memory/ports/persistence.js";
import { postgresTurnLock } from "../../src/storage/postgres/turn-lock.js";
import { DEFAULT_REDIS_LEASE_MS, redisTurnLock } from "../../src/storage/redis/turn-lock.js";
import { sqliteTurnLock } from "../../src/storage/sqlite/turn-lock.js";
import { setLogLevel, setLogSink } from "../../src/logger.js";
import { POSTGRES_ADMIN_URL } from "../support/postgres.js";

/**
 * A turn lock held by another process that is killed mid-turn (SIGKILL: no cleanup runs) must not
 * hold up the thread's next turn: the lease of a holder provably gone is taken over at once.
 */

const children: ChildProcess[] = [];
let logs: { event: string; [field: string]: unknown }[] = [];

beforeEach(() => {
  logs = [];
  setLogLevel("warn");
  setLogSink((line) => logs.push(JSON.parse(line) as { event: string }));
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** Starts test/support/hold-turn-lock.ts (one node process, no wrapper) and waits until it holds the lock. */
async function startHolder(args: string[]): Promise<{ child: ChildProcess; exited: Promise<void> }> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/support/hold-turn-lock.ts", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`holder did not take the lock: ${output}`)), 20_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"held":true')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", () => reject(new Error(`holder exited: ${output}`)));
  });
  expect(JSON.parse(output.trim().split("\n")[0]!)).toEqual({ held: true, pid: child.pid });
  return { child, exited };
}

/** Kills the holder, then times the next turn on the thread from the kill until it starts. */
async function waitAfterKill(holder: { child: ChildProcess; exited: Promise<void> }, lock: TurnLock, threadId: string, during?: () => Promise<unknown>) {
  const killedAt = performance.now();
  holder.child.kill("SIGKILL");
  await holder.exited;
  return lock.run(threadId, async () => ({ waitedMs: performance.now() - killedAt, seen: await during?.() }));
}

function takeovers(pid: number | undefined) {
  return logs.filter((line) => line.event === "turn_lock.taken_over" && line.previous_pid === pid);
}

describe("a turn lock whose holder was killed mid-turn", () => {
  const clients: RedisClientType[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.quit()));
  });

  it("SQLite: is taken over within a second, though its 30 s lease has not run out", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-lock-crash-"));
    const file = path.join(dir, "m.db");
    const db = new Database(file);
    db.pragma("busy_timeout = 5000");
    const threadId = "t/u/crashed";
    const holder = await startHolder(["sqlite", file, threadId, "30000"]);
    const row = () => db.prepare("SELECT * FROM turn_locks WHERE thread_id = ?").get(threadId) as Record<string, unknown>;
    const held = row();
    // While the holder lives, the thread is held.
    await expect(sqliteTurnLock(db, { waitMs: 300 }).run(threadId, async () => "ran")).rejects.toMatchObject({ code: "TURN_LOCK_TIMEOUT" });

    const { waitedMs, seen } = await waitAfterKill(holder, sqliteTurnLock(db, { waitMs: 5_000 }), threadId, async () => row());
    expect(waitedMs).toBeLessThan(1_000);
    expect(held).toMatchObject({ pid: holder.child.pid, host: expect.any(String) });
    expect(seen).toMatchObject({ pid: process.pid, host: held.host });
    expect((seen as { token: string }).token).not.toBe(held.token);
    expect(Number(held.expires_at)).toBeGreaterThan(Date.now()); // its lease would still be running
    expect(takeovers(holder.child.pid)).toHaveLength(1);
    expect(db.prepare("SELECT count(*) AS n FROM turn_locks").get()).toEqual({ n: 0 });
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("Redis: is taken over within a second, though its 30 s lease has not run out", async () => {
    const client = createClient({ url: "redis://127.0.0.1:6379" }) as RedisClientType;
    await client.connect();
    clients.push(client);
    const prefix = `mg-crash-${randomUUID().slice(0, 8)}`;
    const threadId = "t/u/crashed";
    const key = `${prefix}:turn-lock:${threadId}`;
    const holder = await startHolder(["redis", prefix, threadId, "30000"]);
    const heldValue = await client.get(key);
    await expect(redisTurnLock(client, { keyPrefix: prefix, waitMs: 300 }).run(threadId, async () => "ran")).rejects.toMatchObject({
      code: "TURN_LOCK_TIMEOUT",
    });

    const lock = redisTurnLock(client, { keyPrefix: prefix, waitMs: 5_000 });
    const { waitedMs, seen } = await waitAfterKill(holder, lock, threadId, async () => [await client.get(key), await client.pTTL(key)]);
    expect(waitedMs).toBeLessThan(1_000);
    const held = JSON.parse(heldValue ?? "null") as { token: string; host: string; pid: number };
    expect(held).toMatchObject({ pid: holder.child.pid, host: expect.any(String) });
    const [value, ttl] = seen as [string, number];
    expect(JSON.parse(value)).toMatchObject({ pid: process.pid, host: held.host });
    expect(JSON.parse(value).token).not.toBe(held.token);
    expect(ttl).toBeGreaterThan(0);
    expect(takeovers(holder.child.pid)).toHaveLength(1);
    expect(await client.keys(`${prefix}:*`)).toEqual([]);
  });

  it("Redis: a holder on another machine is taken over once its lease (1.5 s) runs out after its renewals stop", async () => {
    const client = createClient({ url: "redis://127.0.0.1:6379" }) as RedisClientType;
    await client.connect();
    clients.push(client);
    const prefix = `mg-crash-${randomUUID().slice(0, 8)}`;
    const threadId = "t/u/elsewhere";
    // Default lease; the holder says it runs elsewhere, so its pid proves nothing here.
    const holder = await startHolder(["redis", prefix, threadId, "", "another-machine"]);
    // Renewals keep it held well past its lease while the holder lives.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await expect(redisTurnLock(client, { keyPrefix: prefix, waitMs: 300 }).run(threadId, async () => "ran")).rejects.toMatchObject({
      code: "TURN_LOCK_TIMEOUT",
    });
    const { waitedMs } = await waitAfterKill(holder, redisTurnLock(client, { keyPrefix: prefix, waitMs: 5_000 }), threadId);
    // The lease, renewed every third of it, had two to three thirds left at the kill; the waiter
    // polls at most 75 ms apart. So it waits at least two thirds of a lease, and not much over one.
    expect(waitedMs).toBeGreaterThanOrEqual((DEFAULT_REDIS_LEASE_MS * 2) / 3 - 50);
    expect(waitedMs).toBeLessThan(DEFAULT_REDIS_LEASE_MS + 500);
    expect(takeovers(holder.child.pid)).toEqual([]); // it ran out; nothing was judged by pid
  });

  it("Postgres: the advisory lock goes with the killed holder's connection", async () => {
    const pool = new pg.Pool({ connectionString: POSTGRES_ADMIN_URL, max: 2 });
    const threadId = `t/u/crashed-${randomUUID().slice(0, 8)}`;
    const holder = await startHolder(["postgres", POSTGRES_ADMIN_URL, threadId]);
    await expect(postgresTurnLock(pool, { waitMs: 300 }).run(threadId, async () => "ran")).rejects.toMatchObject({ code: "TURN_LOCK_TIMEOUT" });
    const { waitedMs } = await waitAfterKill(holder, postgresTurnLock(pool), threadId);
    expect(waitedMs).toBeLessThan(1_000);
    await pool.end();
  });
});
