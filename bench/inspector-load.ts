/**
 * `npm run bench:inspector`: the inspector's first load (page, script, style and its first API
 * reads, until the page marks itself ready) in Debian's Chromium, for a user with 10,000 stored
 * messages (20 sessions, plus facts and events from live turns) against a user with 100, interleaved
 * run by run on one SQLite service, fresh browser context each time (nothing cached). Medians, the
 * ratio large/small and the 300 ms target. The tenant also holds --users more users (each one
 * imported session of two messages): the page's first view, its users list, is timed the same way
 * (interleaved with the two users), and GET /v1/users itself (first page, narrowed by an id prefix,
 * last page) through the service app. Prints one JSON object.
 * Options: --messages N (default 10000), --runs N (default 9), --users N (default 10000).
 */
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import { flagsOrExit } from "../src/cli/args.js";
import { createMemoryGraph, type MemoryGraph } from "../src/app/create-memory-graph.js";
import { setLogLevel } from "../src/logger.js";
import { createServer } from "../src/server/create-server.js";
import { launchChromium } from "./lib/chromium.js";

const args = flagsOrExit(
  process.argv.slice(2),
  { messages: { type: "string" }, runs: { type: "string" }, users: { type: "string" } },
  "usage: npm run bench:inspector -- [--messages N] [--runs N] [--users N]",
);
const USERS = Number(args.users ?? 10_000);
const MESSAGES = Number(args.messages ?? 10_000);
const RUNS = Number(args.runs ?? 9);
const TARGET_MS = 300;
const tenantId = "default";
setLogLevel("silent");

/** Stores `count` messages for `userId` in sessions of 500, through the import path live turns share. */
async function seed(memory: MemoryGraph, userId: string, count: number): Promise<void> {
  const perSession = 500;
  for (let start = 0; start < count; start += 1000) {
    const sessions = [];
    for (let s = start; s < Math.min(count, start + 1000); s += perSession) {
      const size = Math.min(perSession, count - s);
      sessions.push({
        sessionId: `s${s / perSession}`,
        startedAt: new Date(Date.UTC(2025, 0, 1) + s * 60_000).toISOString(),
        messages: Array.from({ length: size }, (_, i) => ({
          id: `m${s + i}`,
          role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
          text: i % 2 === 0 ? `Message ${s + i}: could you check order ${1000 + s + i} and the delivery to Chiang Mai?` : `Order ${1000 + s + i} ships on Friday.`,
        })),
      });
    }
    await memory.importSessions({ tenantId, userId }, sessions);
  }
  for (const message of ["My name is Anong", "I live in Bangkok", "I like jazz a lot", "I want to cancel my order 42 now"]) {
    await memory.runTurn({ tenantId, userId, sessionId: "live", message });
  }
  await memory.settled();
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-bench-inspector-"));
const memory = await createMemoryGraph({ backend: "sqlite", sqlitePath: path.join(dir, "m.db"), chatModel: null, classifierModel: null, summaryModel: null });
await seed(memory, "large", MESSAGES);
await seed(memory, "small", 100);
/** `USERS` more users of the same tenant, one imported session of two messages each: the page opens on their list. */
for (let u = 0; u < USERS; u += 1) {
  const userId = `user-${String(u).padStart(5, "0")}`;
  await memory.importSessions({ tenantId, userId }, [
    {
      sessionId: "s1",
      startedAt: new Date(Date.UTC(2025, 0, 1) + u * 60_000).toISOString(),
      messages: [
        { id: `${userId}-1`, role: "user", text: `Hello, I am ${userId}` },
        { id: `${userId}-2`, role: "assistant", text: "Hello!" },
      ],
    },
  ]);
}
const app = createServer({ memory });
const server = await new Promise<ServerType>((resolve) => {
  const started = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(started));
});
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const browser = await launchChromium();

/** One first load: a fresh context (empty cache), navigation to ready; the page's own clock and the wall clock. */
async function load(userId: string | null): Promise<{ page_ms: number; wall_ms: number }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const started = performance.now();
  await page.goto(userId === null ? `${base}/inspector` : `${base}/inspector#user=${userId}`);
  await page.waitForSelector("body[data-ready='true']", { timeout: 30_000 });
  const wall = performance.now() - started;
  const readyAt = Number(await page.getAttribute("body", "data-ready-at"));
  await context.close();
  return { page_ms: readyAt, wall_ms: Math.round(wall * 10) / 10 };
}

await load("small"); // warm the service and the browser once, unmeasured
const runs: Record<"small" | "large" | "users", { page_ms: number; wall_ms: number }[]> = { small: [], large: [], users: [] };
for (let i = 0; i < RUNS; i += 1) {
  // Interleaved, alternating which goes first, so drift on a shared machine hits both alike.
  const order: ("small" | "large" | "users")[] = i % 2 === 0 ? ["small", "large", "users"] : ["users", "large", "small"];
  for (const view of order) runs[view].push(await load(view === "users" ? null : view));
}
await browser.close();

/** One GET of the users list through the HTTP app (routing, key, validation, store, JSON), in ms. */
async function listOnce(query: string): Promise<number> {
  const started = performance.now();
  const res = await app.request(`/v1/users${query}`);
  const body = (await res.json()) as { total: number };
  if (res.status !== 200 || (query === "" && body.total !== USERS + 2)) throw new Error(`users list: HTTP ${res.status}, total ${body.total}`);
  return Math.round((performance.now() - started) * 10) / 10;
}
await listOnce(""); // unmeasured: the statement's first preparation
const lists: Record<"first_page" | "prefix" | "last_page", number[]> = { first_page: [], prefix: [], last_page: [] };
for (let i = 0; i < RUNS; i += 1) {
  lists.first_page.push(await listOnce("?limit=20"));
  lists.prefix.push(await listOnce("?prefix=user-09&limit=20"));
  lists.last_page.push(await listOnce(`?limit=20&offset=${Math.max(0, USERS - 20)}`));
}
await new Promise<void>((resolve) => server.close(() => resolve()));
await memory.close();
fs.rmSync(dir, { recursive: true, force: true });

const summary = (user: "small" | "large" | "users") => ({
  median_page_ms: median(runs[user].map((r) => r.page_ms)),
  median_wall_ms: median(runs[user].map((r) => r.wall_ms)),
  runs_page_ms: runs[user].map((r) => r.page_ms),
});
const small = summary("small");
const large = summary("large");
const landing = summary("users");
process.stdout.write(
  `${JSON.stringify({
    bench: "inspector-first-load",
    messages: { large: MESSAGES, small: 100 },
    runs: RUNS,
    small,
    large,
    ratio_large_small: Math.round((large.median_page_ms / small.median_page_ms) * 100) / 100,
    target: { first_load_ms: TARGET_MS, met: large.median_page_ms <= TARGET_MS },
    users_page: { ...landing, users: USERS + 2, met: landing.median_page_ms <= TARGET_MS },
    users_list: {
      users: USERS + 2,
      backend: "sqlite",
      median_ms: { first_page: median(lists.first_page), prefix: median(lists.prefix), last_page: median(lists.last_page) },
      runs_ms: lists,
      target: { ms: TARGET_MS, met: Math.max(median(lists.first_page), median(lists.prefix), median(lists.last_page)) <= TARGET_MS },
    },
  })}\n`,
);
