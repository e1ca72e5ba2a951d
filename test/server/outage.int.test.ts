import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedisChild, type RedisChild } from "../../bench/lib/redis-child.js";
import { startTcpProxy, type TcpProxy } from "../../bench/lib/tcp-proxy.js";
import { createTempDatabase } from "../support/postgres.js";
import { freePort, startService, waitFor } from "../support/service-process.js";
import { parseSse } from "./helpers.js";

/**
 * The service (`npm start`, MEMORY_BACKEND=redis with long-term memory in Postgres, offline) while
 * its storage goes away and comes back: a private redis-server of this test is stopped and started
 * (saving its data, so the checkpoint written before the outage comes back stale), and a TCP proxy
 * of this test between the service and the shared Postgres cuts or blackholes its connections.
 * Bounds are generous (a loaded machine); `npm run bench:outage` prints the figures.
 */

const STORAGE_TIMEOUT_MS = 1000;
const USER = "outage-user";

interface TurnBody {
  status?: string;
  degraded?: string[];
  candidate?: { text: string } | null;
  message_ids?: { user: string | null; assistant: string | null };
  error?: { code: string; message: string };
}
interface Message {
  id: string;
  role: string;
  text: string;
  parent_id: string | null;
}

let redis: RedisChild;
let proxy: TcpProxy;
let database: { url: string; drop: () => Promise<void> };
let service: ReturnType<typeof startService>;
let base: string;

beforeAll(async () => {
  redis = await startRedisChild({ persist: true });
  database = await createTempDatabase();
  proxy = await startTcpProxy({ host: "127.0.0.1", port: 5432 });
  const port = await freePort();
  service = startService({
    PORT: String(port),
    MEMORY_BACKEND: "redis",
    REDIS_URL: redis.url,
    DATABASE_URL: database.url.replace("127.0.0.1:5432", `127.0.0.1:${proxy.port}`),
    STORAGE_TIMEOUT_MS: String(STORAGE_TIMEOUT_MS),
  });
  await waitFor(() => service.output().includes("server.listening") || service.child.exitCode !== null, 30_000);
  if (service.child.exitCode !== null) throw new Error(`the service did not start:\n${service.output()}`);
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  service?.child.kill("SIGTERM");
  await service?.exited;
  await proxy?.close();
  await redis?.dispose();
  await database?.drop();
});

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

async function turn(session: string, message: string) {
  return timed(async () => {
    const res = await fetch(`${base}/v1/turns`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user_id: USER, session_id: session, message }),
    });
    return { status: res.status, retryAfter: res.headers.get("retry-after"), body: (await res.json()) as TurnBody };
  });
}

async function ready() {
  return timed(async () => {
    const res = await fetch(`${base}/readyz`);
    return { status: res.status, body: (await res.json()) as { status?: string; error?: { code: string; message: string }; dependencies?: { name: string; ok: boolean }[] } };
  });
}

async function thread(session: string): Promise<Message[]> {
  const res = await fetch(`${base}/v1/sessions/${session}/messages?user_id=${USER}`);
  if (res.status === 404) return [];
  return ((await res.json()) as { messages: Message[] }).messages;
}

/** Log lines of `event` (and, when given, of `dependency`) the service wrote so far. */
function logged(event: string, dependency?: string): number {
  return service
    .stdout()
    .split("\n")
    .filter((line) => line.includes(`"event":"${event}"`) && (dependency === undefined || line.includes(`"dependency":"${dependency}"`))).length;
}

async function untilReady(): Promise<void> {
  const until = Date.now() + 20_000;
  while ((await ready()).value.status !== 200) {
    if (Date.now() > until) throw new Error("the service did not become ready again");
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Prints what a case measured (asserted only within generous bounds). */
function report(name: string, figures: Record<string, number>): void {
  process.stdout.write(`[outage] ${name}: ${JSON.stringify(Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, Math.round(v)])))}\n`);
}

describe("the service while its storage goes away", () => {
  it("answers without Redis, degraded, and continues the same thread once Redis is back", async () => {
    const first = await turn("s-redis", "My name is Anong and I live in Chiang Mai.");
    expect(first.value.status).toBe(200);
    expect(first.value.body.degraded).toEqual([]);

    await redis.stop();
    const during = [await turn("s-redis", "I like green tea."), await turn("s-redis", "What is my name?")];
    for (const { value } of during) {
      expect(value.status).toBe(200);
      expect(value.body.status).toBe("OK");
      expect(value.body.degraded).toEqual(["session_store"]);
      expect(value.body.candidate?.text).toBeTruthy();
    }
    // The degraded turn answered from long-term memory: the name told before the outage.
    expect(during[1]?.value.body.candidate?.text).toContain("Anong");
    const streamed = await fetch(`${base}/v1/turns/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user_id: USER, session_id: "s-redis", message: "Do you still know me?" }),
    });
    expect(streamed.status).toBe(200);
    const events = parseSse(await streamed.text());
    expect(events.at(-1)).toMatchObject({ event: "result", data: { status: "OK", degraded: ["session_store"] } });
    // The thread reads from long-term memory alone, up to the newest degraded turn.
    expect((await thread("s-redis")).map((m) => m.text).filter((_, i) => i % 2 === 0)).toEqual([
      "My name is Anong and I live in Chiang Mai.",
      "I like green tea.",
      "What is my name?",
      "Do you still know me?",
    ]);
    const notReady = await ready();
    expect(notReady.value.status).toBe(503);
    expect(notReady.value.body.error?.message).toContain("session_store (redis)");
    expect(notReady.value.body.dependencies?.find((d) => d.name === "session_store")?.ok).toBe(false);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    // Once per outage, not once per turn.
    expect(logged("dependency.lost", "session_store")).toBe(1);
    expect(service.stdout().split("\n").filter((l) => l.includes('"event":"turn.degraded"') && l.includes('"severity":"WARNING"'))).toHaveLength(1);

    await redis.start();
    await untilReady();
    expect(logged("dependency.recovered", "session_store")).toBe(1);
    const after = await turn("s-redis", "Where do I live?");
    expect(after.value.status).toBe(200);
    expect(after.value.body.degraded).toEqual([]);

    // One unbroken thread: the degraded turns follow the first, and the turn after the outage
    // follows them (its stale checkpoint caught up from the transcript), nothing lost.
    const messages = await thread("s-redis");
    expect(messages.map((m) => m.text).filter((_, i) => i % 2 === 0)).toEqual([
      "My name is Anong and I live in Chiang Mai.",
      "I like green tea.",
      "What is my name?",
      "Do you still know me?",
      "Where do I live?",
    ]);
    for (let i = 1; i < messages.length; i += 1) expect(messages[i]?.parent_id).toBe(messages[i - 1]?.id);
    report("redis stopped", { degraded_ms: Math.max(...during.map((d) => d.ms)), readyz_ms: notReady.ms });
    expect(Math.max(...during.map((d) => d.ms))).toBeLessThan(STORAGE_TIMEOUT_MS + 4000);
    expect(notReady.ms).toBeLessThan(2000);
  });

  it("refuses turns with 503, Retry-After and MEMORY_STORE_UNAVAILABLE while Postgres is cut, storing nothing", async () => {
    expect((await turn("s-pg", "Before the cut.")).value.status).toBe(200);
    const logFrom = service.output().length;
    proxy.cut();
    const refused = await turn("s-pg", "During the cut.");
    expect(refused.value.status).toBe(503);
    expect(refused.value.body.error?.code).toBe("MEMORY_STORE_UNAVAILABLE");
    expect(Number(refused.value.retryAfter)).toBeGreaterThanOrEqual(1);
    const notReady = await ready();
    expect(notReady.value.status).toBe(503);
    expect(notReady.value.body.error?.message).toContain("memory_store (postgres)");
    expect((await fetch(`${base}/v1/sessions/s-pg/messages?user_id=${USER}`)).status).toBe(503);
    proxy.restore();
    await untilReady();
    const after = await turn("s-pg", "After the cut.");
    expect(after.value.status).toBe(200);
    expect((await thread("s-pg")).map((m) => m.text).filter((_, i) => i % 2 === 0)).toEqual(["Before the cut.", "After the cut."]);
    report("postgres cut", { refused_ms: refused.ms, readyz_ms: notReady.ms });
    // One outage, one warning of each kind: not one per request, nor one per pooled connection.
    const warnings = service
      .output()
      .slice(logFrom)
      .split("\n")
      .filter((line) => line.includes('"severity":"WARNING"'))
      .map((line) => (JSON.parse(line) as { event: string }).event);
    expect(warnings.filter((event) => event === "postgres_idle_connection_lost").length, warnings.join(", ")).toBeLessThanOrEqual(1);
    expect(warnings.filter((event) => event === "dependency.lost"), warnings.join(", ")).toEqual(["dependency.lost"]);
    expect(refused.ms).toBeLessThan(STORAGE_TIMEOUT_MS + 3000);
  });

  it("answers 503 with Retry-After quickly when everything is down, and within the storage timeout when Postgres hangs", async () => {
    await redis.stop();
    proxy.cut();
    const bothDown = await turn("s-all", "Anyone there?");
    expect(bothDown.value.status).toBe(503);
    expect(bothDown.value.retryAfter).not.toBeNull();
    const notReady = await ready();
    expect(notReady.value.body.dependencies?.filter((d) => !d.ok).map((d) => d.name).sort()).toEqual(["memory_store", "session_store"]);
    await redis.start();
    proxy.restore();
    await untilReady();

    // A server that accepts and never answers: only the storage timeout notices.
    proxy.blackhole();
    const hung = await turn("s-all", "Still there?");
    const hungReady = await ready();
    proxy.restore();
    expect(hung.value.status).toBe(503);
    expect(hung.value.body.error?.code).toBe("MEMORY_STORE_UNAVAILABLE");
    expect(hungReady.value.status).toBe(503);
    await untilReady();
    expect((await turn("s-all", "Back again.")).value.status).toBe(200);
    expect((await thread("s-all")).map((m) => m.text).filter((_, i) => i % 2 === 0)).toEqual(["Back again."]);
    report("everything down", { refused_ms: bothDown.ms, readyz_ms: notReady.ms, hung_ms: hung.ms, hung_readyz_ms: hungReady.ms });
    expect(bothDown.ms).toBeLessThan(2000 + 2000);
    expect(hung.ms).toBeLessThan(STORAGE_TIMEOUT_MS + 4000);
    expect(hungReady.ms).toBeLessThan(2000);
  });
});
