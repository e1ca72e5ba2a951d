import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryGraphClient } from "../../src/entries/client.js";
import { createTempDatabase } from "../support/postgres.js";
import { freePort, startService, waitFor } from "../support/service-process.js";

/**
 * RATE_LIMIT_PER_MINUTE is one limit per key for the whole service: two instances of `npm start`,
 * each with two workers, share the counter (in Redis, Postgres or the SQLite file), so a burst of
 * requests through all four processes gets exactly the documented number accepted.
 */
const LIMIT = 30;
const SENT = 3 * LIMIT;

interface Fleet {
  ports: number[];
  key: string;
  stop(): Promise<void>;
}

async function startFleet(env: Record<string, string>): Promise<Fleet> {
  // A tenant of its own: the counter may be shared with other runs (Redis), its keys must not be.
  const tenant = `t${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const key = `secret-${randomUUID()}`;
  const ports = [await freePort(), await freePort()];
  const services = ports.map((port) =>
    startService({ ...env, PORT: String(port), HOST: "127.0.0.1", API_KEYS: `${tenant}:${key}`, WEB_CONCURRENCY: "2", RATE_LIMIT_PER_MINUTE: String(LIMIT) }),
  );
  const stop = async () => {
    for (const service of services) if (service.child.exitCode === null) service.child.kill("SIGTERM");
    await Promise.all(services.map((service) => service.exited));
  };
  try {
    await Promise.all(services.map((service) => waitFor(() => service.output().includes("server.workers"), 60_000)));
  } catch (error) {
    await stop();
    throw new Error(`the services did not start: ${services.map((s) => s.output()).join("\n")}`, { cause: error });
  }
  return { ports, key, stop };
}

/** Sends SENT requests, alternating between the instances, on fresh connections (so both workers of each take some). */
async function burst(fleet: Fleet): Promise<{ accepted: number[]; limited: Response[] }> {
  const clients = fleet.ports.map((port) =>
    createMemoryGraphClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: fleet.key, retries: 0, headers: { connection: "close" } }),
  );
  const accepted = fleet.ports.map(() => 0);
  const limited: Response[] = [];
  const one = async (i: number) => {
    const at = i % clients.length;
    const { response } = await clients[at]!.api.GET("/v1/users/{user_id}/memory", { params: { path: { user_id: "u1" } } });
    if (response.status === 200) accepted[at] = (accepted[at] ?? 0) + 1;
    else if (response.status === 429) limited.push(response);
    else throw new Error(`unexpected status ${response.status}`);
  };
  // Ten at a time: concurrent enough to race the counter, gentle enough for a loaded machine.
  for (let start = 0; start < SENT; start += 10) await Promise.all(Array.from({ length: Math.min(10, SENT - start) }, (_, j) => one(start + j)));
  return { accepted, limited };
}

async function expectLimitHolds(fleet: Fleet): Promise<void> {
  const { accepted, limited } = await burst(fleet);
  const total = accepted.reduce((a, b) => a + b, 0);
  expect(total).toBe(LIMIT);
  // Both instances answered, and refused once the shared count was spent.
  expect(accepted.every((n) => n > 0)).toBe(true);
  expect(limited).toHaveLength(SENT - LIMIT);
  const last = limited.at(-1)!;
  expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(last.headers.get("ratelimit-limit")).toBe(String(LIMIT));
  expect(last.headers.get("ratelimit-remaining")).toBe("0");
}

describe("the rate limit is shared by two instances × two workers", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-shared-limit-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("counted in the SQLite file they share", async () => {
    const fleet = await startFleet({ MEMORY_BACKEND: "sqlite", SQLITE_PATH: path.join(dir, "sqlite.db") });
    try {
      await expectLimitHolds(fleet);
    } finally {
      await fleet.stop();
    }
  }, 180_000);

  it("counted in Redis when REDIS_URL is set", async () => {
    const fleet = await startFleet({ MEMORY_BACKEND: "sqlite", SQLITE_PATH: path.join(dir, "redis.db"), REDIS_URL: "redis://127.0.0.1:6379" });
    try {
      await expectLimitHolds(fleet);
    } finally {
      await fleet.stop();
    }
  }, 180_000);

  describe("on Postgres", () => {
    let db: Awaited<ReturnType<typeof createTempDatabase>>;
    beforeAll(async () => {
      db = await createTempDatabase();
    });
    afterAll(async () => db.drop());

    it("counted in the service's database", async () => {
      const fleet = await startFleet({ MEMORY_BACKEND: "postgres", DATABASE_URL: db.url });
      try {
        await expectLimitHolds(fleet);
      } finally {
        await fleet.stop();
      }
    }, 180_000);
  });
});
