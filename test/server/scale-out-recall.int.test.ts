import { randomUUID } from "node:crypto";
import { createTempDatabase } from "../support/postgres.js";
import { freePort, startService, waitFor } from "../support/service-process.js";

/**
 * Scale-out correctness: two service processes (two Cloud Run instances) on one Postgres database
 * recall the same things. A message written through one is found by recall on the other on the
 * very next request, though the other has its recall index of that user cached already; a user
 * forgotten through one is gone from the other's recall too. Once with sessions in Postgres,
 * once with sessions in Redis in front.
 */
type Service = ReturnType<typeof startService> & { base: string };

const REDIS_URL = "redis://127.0.0.1:6379";

async function startTwo(env: Record<string, string>): Promise<[Service, Service]> {
  const services = await Promise.all(
    [0, 1].map(async () => {
      const port = await freePort();
      return { ...startService({ ...env, PORT: String(port), WEB_CONCURRENCY: "1", SHUTDOWN_GRACE_MS: "2000" }), base: `http://127.0.0.1:${port}` };
    }),
  );
  await waitFor(() => services.every((s) => s.output().includes("server.listening")), 60_000);
  return services as [Service, Service];
}

async function turn(service: Service, user: string, session: string, message: string): Promise<void> {
  const res = await fetch(`${service.base}/v1/turns`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user_id: user, session_id: session, message }),
  });
  expect(res.status).toBe(200);
}

async function search(service: Service, user: string, query: string): Promise<string[]> {
  const res = await fetch(`${service.base}/v1/users/${user}/memory/search?q=${encodeURIComponent(query)}&limit=5`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { hits: { text: string }[] }).hits.map((hit) => hit.text);
}

describe.each([
  ["sessions in Postgres", (url: string) => ({ MEMORY_BACKEND: "postgres", DATABASE_URL: url })],
  ["sessions in Redis", (url: string) => ({ MEMORY_BACKEND: "redis", DATABASE_URL: url, REDIS_URL })],
])("two service processes on one Postgres (%s)", (_name, envOf) => {
  let database: Awaited<ReturnType<typeof createTempDatabase>>;
  let services: [Service, Service];

  beforeAll(async () => {
    database = await createTempDatabase();
    services = await startTwo(envOf(database.url));
  }, 90_000);

  afterAll(async () => {
    for (const service of services ?? []) {
      if (service.child.exitCode === null) service.child.kill("SIGTERM");
      await service.exited;
    }
    await database?.drop();
  }, 60_000);

  it("recalls on one instance what was just written through the other, and forgets alike", async () => {
    const [a, b] = services;
    const user = `u-${randomUUID().slice(0, 8)}`;
    await turn(a, user, "s1", "My sister Iris moved to Utrecht to work at the observatory.");
    // Both instances now hold this user's recall index.
    expect((await search(a, user, "Where did Iris move?")).join(" ")).toContain("Utrecht");
    expect((await search(b, user, "Where did Iris move?")).join(" ")).toContain("Utrecht");
    // Written through b, recalled by a on the very next request (and the other way round).
    await turn(b, user, "s2", "I adopted a rescue greyhound called Biscuit last week.");
    expect((await search(a, user, "greyhound Biscuit")).join(" ")).toContain("Biscuit");
    await turn(a, user, "s3", "We are planning a sailing trip to Gdansk in August.");
    expect((await search(b, user, "sailing trip Gdansk")).join(" ")).toContain("Gdansk");
    // Forgotten through a: gone from b's recall at once.
    const forget = await fetch(`${a.base}/v1/users/${user}`, { method: "DELETE" });
    expect(forget.status).toBe(200);
    expect(await search(b, user, "greyhound Biscuit")).toEqual([]);
    expect(await search(b, user, "Where did Iris move?")).toEqual([]);
  }, 120_000);
});
