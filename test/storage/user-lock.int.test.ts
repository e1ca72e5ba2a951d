import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { UserLock } from "../../src/memory/ports/persistence.js";
import { setLogLevel } from "../../src/logger.js";
import { inProcessUserLock } from "../../src/storage/memory/user-lock.js";
import { postgresUserLock, USER_LOCK_CLASS } from "../../src/storage/postgres/turn-lock.js";
import { currentHolder } from "../../src/storage/shared/lease-holder.js";
import { sqliteUserLock } from "../../src/storage/sqlite/user-lock.js";
import { createTempDatabase } from "../support/postgres.js";

setLogLevel("silent");

/** Two lock instances on one storage (each with connections of its own, as two processes would have). */
interface Engine {
  locks: [UserLock, UserLock];
  /** Resolves once an exclusive ask is waiting in the storage (read from the storage itself). */
  exclusiveWaiting(): Promise<void>;
  /** What the storage still holds of users' locks (rows, granted or waiting locks). */
  held(): Promise<unknown[]>;
  close(): Promise<void>;
}

const engines: [string, () => Promise<Engine>][] = [
  [
    "in-process",
    async () => {
      const lock = inProcessUserLock();
      // An ask is queued as it is made: nothing to wait for.
      return { locks: [lock, lock], exclusiveWaiting: async () => undefined, held: async () => [], close: async () => undefined };
    },
  ],
  [
    "SQLite (two connections to one file)",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-user-lock-"));
      const file = path.join(dir, "m.db");
      const dbs = [new Database(file), new Database(file)] as const;
      for (const db of dbs) db.pragma("busy_timeout = 5000");
      const locks: [UserLock, UserLock] = [sqliteUserLock(dbs[0], { waitMs: 5_000 }), sqliteUserLock(dbs[1], { waitMs: 5_000 })];
      const rows = () => dbs[0].prepare("SELECT * FROM user_locks").all();
      return {
        locks,
        exclusiveWaiting: () => vi.waitFor(() => expect(dbs[0].prepare("SELECT 1 FROM user_locks WHERE mode = 'waiting'").get()).toBeDefined(), { timeout: 5_000 }),
        held: async () => rows(),
        close: async () => {
          for (const db of dbs) db.close();
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  ],
  [
    "Postgres (two pools on one database)",
    async () => {
      const db = await createTempDatabase();
      const pools = [new pg.Pool({ connectionString: db.url, max: 3 }), new pg.Pool({ connectionString: db.url, max: 3 })] as const;
      // Dropping the database ends the pools' idle connections from the server's side: a pool reports that as an error event.
      for (const pool of pools) pool.on("error", () => undefined);
      const advisory = async (granted: boolean) =>
        (await pools[0].query("SELECT mode FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND granted = $2 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())", [USER_LOCK_CLASS, granted])).rows;
      return {
        locks: [postgresUserLock(pools[0], { waitMs: 5_000 }), postgresUserLock(pools[1], { waitMs: 5_000 })],
        exclusiveWaiting: () => vi.waitFor(async () => expect(await advisory(false)).toContainEqual({ mode: "ExclusiveLock" }), { timeout: 5_000 }),
        held: async () => [...(await advisory(true)), ...(await advisory(false))],
        close: async () => {
          await Promise.all(pools.map((pool) => pool.end()));
          await db.drop();
        },
      };
    },
  ],
];

/** A promise with its resolver, for holding work open until the test lets it go. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe.each(engines)("user lock: %s", (_name, make) => {
  let engine: Engine;
  afterEach(async () => engine.close());

  it("lets turns of one user (shared asks) hold it together, across instances", async () => {
    engine = await make();
    const [a, b] = engine.locks;
    const key = `t/${randomUUID()}`;
    // The second ask is made while the first is held: it would wait forever if shared asks excluded each other.
    expect(await a.shared(key, () => b.shared(key, async () => "both"))).toBe("both");
    expect(await engine.held()).toEqual([]);
  });

  it("holds an exclusive ask until every shared holder left, and a shared ask made after it until it ends", async () => {
    engine = await make();
    const [a, b] = engine.locks;
    const key = `t/${randomUUID()}`;
    const order: string[] = [];
    const turn = gate();
    const entered = gate();
    const running = a.shared(key, async () => {
      entered.open();
      await turn.opened;
      order.push("turn ends");
    });
    await entered.opened;
    const forgetting = b.exclusive(key, async () => void order.push("forget"));
    await engine.exclusiveWaiting();
    const later = a.shared(key, async () => void order.push("later turn"));
    expect(order).toEqual([]);
    turn.open();
    await Promise.all([running, forgetting, later]);
    expect(order).toEqual(["turn ends", "forget", "later turn"]);
    expect(await engine.held()).toEqual([]);
  });

  it("does not hold another user's asks", async () => {
    engine = await make();
    const [a, b] = engine.locks;
    const key = `t/${randomUUID()}`;
    expect(await a.exclusive(key, () => b.exclusive(`${key}-other`, async () => "free"))).toBe("free");
  });
});

describe("SQLite user lock: a holder gone", () => {
  it("is passed over at once when it was on this machine and its process is gone, and leaves no row", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-user-lock-"));
    const file = path.join(dir, "m.db");
    const db = new Database(file);
    try {
      const gonePid = spawnSync(process.execPath, ["-e", ""]).pid;
      const gone = sqliteUserLock(db, { holder: { host: currentHolder().host, pid: gonePid } });
      const key = `t/${randomUUID()}`;
      const entered = gate();
      // A turn whose process "died" holding the lock: its work never ends, its lease is never released.
      void gone.shared(key, async () => {
        entered.open();
        await new Promise(() => undefined);
      });
      await entered.opened;
      const alive = sqliteUserLock(db, { waitMs: 2_000 });
      expect(await alive.exclusive(key, async () => "forgotten")).toBe("forgotten");
      // The gone holder's row went when the lock was taken over; the exclusive one when it ended.
      expect(db.prepare("SELECT * FROM user_locks").all()).toEqual([]);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
