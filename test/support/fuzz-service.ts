import { spawn } from "node:child_process";
import fc from "fast-check";
import { expect } from "vitest";
import { z } from "zod";
import { validateId } from "../../src/memory/scope.js";
import { requestArb, send, type RawRequest, type RawResponse } from "./fuzz-requests.js";

/**
 * The fuzz run shared by every engine's fuzz test: generated requests against running workers,
 * each answer checked (no 5xx, no internals, JSON errors, ids as addressed), and the store's
 * digest compared around every 4xx or 5xx so that a refusal is seen to store nothing.
 */

export interface FuzzTarget {
  /** Valid API keys of the service (the generator also sends wrong and missing ones). */
  keys: readonly string[];
  /** The port of the worker that takes the next request. */
  nextPort: () => number;
  /** A digest of every stored row that a request may write (coordination rows left out). */
  stored: () => string | Promise<string>;
  /** Resolves once no turn holds a lock, so nothing of an earlier request is still being written. */
  quiet: () => Promise<void>;
  /** The service's latest error log lines, for failure messages. */
  recentErrors: () => string;
  seed: number;
  runs: number;
}

const errorBody = z
  .object({ error: z.object({ code: z.string().regex(/^[A-Z][A-Z0-9_]*$/), message: z.string().min(1), field: z.string().optional() }).strict() })
  .strict();
/** A V8 stack frame (raw or JSON-escaped), a source path, or a stack field. */
const INTERNALS = /(\n|\\n)\s*at \S|\/work\/|node_modules\/|\.[cm]?[jt]s:\d+:\d+|"stack"/;

/** Sends `target.runs` generated requests and checks each answer; returns the count per status. */
export async function fuzzService(target: FuzzTarget): Promise<Map<number, number>> {
  const seen = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(requestArb(target.keys), async (req) => {
      await target.quiet();
      const before = await target.stored();
      const res = await send(target.nextPort(), req);
      seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
      checkAnswer(req, res, target.recentErrors);
      if (res.status >= 400) {
        await target.quiet();
        expect(await target.stored(), `a ${res.status} wrote to the database: ${describeExchange(req, res)}`).toBe(before);
      }
    }),
    { seed: target.seed, numRuns: target.runs },
  );
  console.info(JSON.stringify({ fuzz: { seed: target.seed, runs: target.runs, statuses: Object.fromEntries([...seen].sort(([a], [b]) => a - b)) } }));
  // The run must reach the service's main paths, not only its front door.
  expect(seen.get(200) ?? 0).toBeGreaterThan(target.runs / 10);
  expect(seen.get(400) ?? 0).toBeGreaterThan(target.runs / 10);
  expect(seen.get(401) ?? 0).toBeGreaterThan(0);
  return seen;
}

/** Runs `npm run gc`'s entry in a child process with `env`; resolves to its exit code and stderr. */
export async function runGc(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const gc = spawn(process.execPath, ["--import", "tsx", "src/cli/gc.ts"], {
    env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", LOG_LEVEL: "error", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  gc.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => gc.once("exit", resolve));
  return { code, stderr };
}

/** A JSON request with a Bearer key. */
export function json(method: string, path: string, key: string, body: unknown): RawRequest {
  return { method, path, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: Buffer.from(JSON.stringify(body)) };
}

function checkAnswer(req: RawRequest, res: RawResponse, recentErrors: () => string): void {
  const where = describeExchange(req, res);
  expect(res.status, `${where}\nservice errors: ${recentErrors()}`).toBeLessThan(500);
  expect(res.text, where).not.toMatch(INTERNALS);
  if (res.status >= 400) {
    expect(res.contentType, where).toMatch(/^application\/json/);
    expect(errorBody.safeParse(JSON.parse(res.text)).success, where).toBe(true);
  }
  // Every user error is found before a stream opens; an error event would be the service's own fault.
  if (req.path.startsWith("/v1/turns/stream") && res.status === 200) expect(res.text, where).not.toContain("event: error");
  // A memory route names exactly the ids its path and query spell, or refuses a malformed escape.
  const ids = addressedIds(req.path);
  if (ids && Object.values(ids).includes(null)) expect(res.status, where).toBeGreaterThanOrEqual(400);
  else if (ids && res.status === 200) {
    expect(JSON.parse(res.text), where).toMatchObject(ids);
    // A look-alike id (one the id rules refuse) never reaches stored data.
    for (const id of Object.values(ids)) expect(() => validateId("id", id), where).not.toThrow();
  }
}

/** The ids a memory route's URL names (as the server sees the URL), null where an escape is malformed; null for other routes. */
function addressedIds(rawPath: string): Record<string, string | null> | null {
  const url = new URL(`http://service${rawPath}`);
  const match = /^\/v1\/(users|sessions)\/([^/]+)(?:\/(memory|messages))?$/.exec(url.pathname);
  if (!match) return null;
  const [, kind, segment = "", tail] = match;
  if (kind === "users") return tail === "messages" ? null : { user_id: strictDecode(segment) };
  if (tail === "memory") return null;
  const pair = url.search.slice(1).split("&").find((p) => p.startsWith("user_id="));
  return { session_id: strictDecode(segment), user_id: pair === undefined ? "" : strictDecode(pair.slice("user_id=".length).replace(/\+/g, " ")) };
}

function strictDecode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

function describeExchange(req: RawRequest, res: RawResponse): string {
  const body = req.body ? JSON.stringify(req.body.toString("utf8").slice(0, 300)) : "(none)";
  return `${req.method} ${req.path} ${JSON.stringify(req.headers)} body=${body} → ${res.status} ${res.text.slice(0, 300)}`;
}
