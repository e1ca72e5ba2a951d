import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pathOf } from "../../src/storage/shared/namespace.js";
import { SqliteStore } from "../../src/storage/sqlite/store.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { loadTranscript } from "../../src/memory/transcript.js";
import { startProvider, type Provider } from "../support/openai-provider.js";
import { freePort, startService, waitFor } from "../support/service-process.js";

/**
 * [slow] The service (`npm start`, SQLite on a file, its model a local OpenAI-compatible stand-in
 * that takes its time: replies 40 ms, classifications 120 ms, embeddings 5 ms) is killed with SIGKILL while a few
 * clients keep sending turns to a few sessions, then started again on the same file. What it
 * answered 200 must be there — a turn is answered once its reply is stored, before its
 * classification and checkpoint — and what it did not finish must leave no trace in any
 * session's thread.
 */

const USER = "crash-user";
const SESSIONS = ["s0", "s1", "s2", "s3"];
const CLIENTS = 6;
const LOAD_MS = 2_000;
const MIN_ANSWERED = 10;
/** Crashes at most, until one catches a turn halfway. */
const CRASH_ATTEMPTS = 3;

interface Message {
  id: string;
  role: "user" | "assistant";
  parent_id: string | null;
}
interface Answered {
  session: string;
  user: string;
  assistant: string;
}

type Service = ReturnType<typeof startService> & { base: string };
const started: Service["child"][] = [];
let provider: Provider;
/**
 * A model slow enough that a kill finds turns half done, and some answered but not yet classified.
 * Embeddings answer sooner than replies: the user's message is stored (with its vector) while the
 * model answers, and the reply (its vector written after the answer) right when it comes, so the
 * half-done window is the reply's time less the embedding's.
 */
const modelTime = (body: Record<string, unknown>) => (Array.isArray(body.tools) && body.tools.length > 0 ? 120 : "messages" in body ? 40 : 5);

async function start(file: string): Promise<Service> {
  const port = await freePort();
  const service = startService({ PORT: String(port), SQLITE_PATH: file, SHUTDOWN_GRACE_MS: "1000", OPENAI_API_KEY: "test", OPENAI_BASE_URL: provider.baseUrl });
  started.push(service.child);
  await waitFor(() => service.output().includes("server.listening") || service.child.exitCode !== null, 30_000);
  if (service.child.exitCode !== null) throw new Error(`the service did not start:\n${service.output()}`);
  return { ...service, base: `http://127.0.0.1:${port}` };
}

async function postTurn(base: string, session: string, message: string, signal?: AbortSignal) {
  const res = await fetch(`${base}/v1/turns`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user_id: USER, session_id: session, message }),
    signal,
  });
  const body = (await res.json()) as { status?: string; message_ids?: { user: string | null; assistant: string | null } };
  return { status: res.status, body };
}

async function thread(base: string, session: string): Promise<Message[]> {
  const res = await fetch(`${base}/v1/sessions/${session}/messages?user_id=${USER}`);
  if (res.status === 404) return [];
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: Message[] }).messages;
}

/** Clients each sending turns back to back, round the sessions, until `halt()`; only 200s are kept. */
function load(base: string) {
  const answered: Answered[] = [];
  let failures = 0;
  let stopped = false;
  const clients = Array.from({ length: CLIENTS }, async (_, client) => {
    for (let i = 0; !stopped; i++) {
      const session = SESSIONS[(client + i) % SESSIONS.length] ?? "s0";
      try {
        const { status, body } = await postTurn(base, session, `client ${client} asks question ${i} about plan ${i % 7}`);
        const ids = body.message_ids;
        if (status === 200 && body.status === "OK" && ids?.user && ids.assistant) answered.push({ session, user: ids.user, assistant: ids.assistant });
        else failures++;
      } catch {
        failures++; // the connection died with the service
      }
    }
  });
  return {
    answered,
    failures: () => failures,
    /** No new turns from here on; the ones in flight end as the service answers or dies. */
    halt: () => void (stopped = true),
    done: () => Promise.all(clients),
  };
}

describe("[slow] a SIGKILL under load, then a restart on the same SQLite file", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-crash-"));
  const file = path.join(dir, "memory.db");
  let service: Service | undefined;
  const answered: Answered[] = [];
  let staleLocks = 0;
  let unansweredUserIds: string[] = [];
  const before = new Map<string, Message[]>();

  beforeAll(async () => {
    provider = await startProvider();
    provider.delay = modelTime;
    let unanswered = 0;
    let left: Awaited<ReturnType<typeof leftovers>>;
    // The kill is aimed at a half-done turn, but the turn may finish between the look and the
    // signal: then crash the restarted service again, a few times at most, until one is caught.
    for (let attempt = 1; ; attempt++) {
      const first = await start(file);
      const traffic = load(first.base);
      await new Promise((resolve) => setTimeout(resolve, LOAD_MS));
      // A slow machine gets more time, so that there is always something to lose.
      await waitFor(() => traffic.answered.length >= MIN_ANSWERED, 8_000).catch(() => undefined);
      await killHalfwayThroughATurn(first, file, traffic.halt);
      await traffic.done();
      answered.push(...traffic.answered);
      unanswered += traffic.failures();
      left = await leftovers(file);
      if (left.unansweredUserIds.length > 0 || attempt === CRASH_ATTEMPTS) break;
    }
    staleLocks = left.staleLocks;
    unansweredUserIds = left.unansweredUserIds;

    service = await start(file);
    expect((await postTurn(service.base, "warm-up", "hello")).status).toBe(200);
    for (const session of SESSIONS) before.set(session, await thread(service.base, session));
    const onThread = new Set([...before.values()].flat().map((m) => m.id));
    const offThread = left.records.filter((r) => !onThread.has(r.id)).map((r) => r.role);
    const crash = { answered: answered.length, unanswered, stale_locks: staleLocks, unanswered_user_messages: unansweredUserIds.length, off_thread: offThread };
    console.info(JSON.stringify({ crash }));
  }, 90_000);

  afterAll(async () => {
    const running = started.filter((child) => child.exitCode === null && child.signalCode === null);
    for (const child of running) child.kill("SIGKILL");
    await Promise.all(running.map((child) => new Promise((resolve) => child.once("exit", resolve))));
    await provider.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("keeps every turn it answered 200 before the kill", () => {
    expect(answered.length).toBeGreaterThanOrEqual(MIN_ANSWERED);
    for (const turn of answered) {
      const ids = (before.get(turn.session) ?? []).map((m) => m.id);
      expect(ids, `turn ${turn.user} of ${turn.session}`).toContain(turn.user);
      expect(ids, `reply ${turn.assistant} of ${turn.session}`).toContain(turn.assistant);
    }
  });

  it("shows no half turn: each thread alternates user and assistant, each message under the one before", () => {
    // The kill came between a turn's user message and its reply: the transcript keeps that message
    // (recall searches the transcript), but the thread ends where the last checkpoint does.
    expect(unansweredUserIds.length).toBeGreaterThan(0);
    const onThread = new Set([...before.values()].flat().map((m) => m.id));
    for (const id of unansweredUserIds) expect(onThread.has(id), `unanswered user message ${id} in a thread`).toBe(false);
    for (const session of SESSIONS) expectWholeTurns(before.get(session) ?? []);
  });

  // Depends on the dead-lease takeover of the SQLite turn lock (branch `defects`): until then a
  // session whose turn was in flight at the kill waits out the 30 s lease of the dead holder.
  it("answers the next turn of every session within 1 s of the restart (needs dead-lease takeover)", async () => {
    const base = service?.base ?? "";
    const next = await Promise.all(
      SESSIONS.map(async (session) => {
        const started = performance.now();
        try {
          const { status, body } = await postTurn(base, session, "and what about the next plan?", AbortSignal.timeout(5_000));
          return { session, status, ids: body.message_ids, ms: Math.round(performance.now() - started) };
        } catch {
          return { session, status: 0, ids: undefined, ms: Math.round(performance.now() - started) };
        }
      }),
    );
    console.info(JSON.stringify({ next_turn_ms: Object.fromEntries(next.map((n) => [n.session, n.ms])), stale_locks: staleLocks }));
    for (const turn of next) {
      expect(turn.status, `next turn of ${turn.session} (${turn.ms} ms)`).toBe(200);
      expect(turn.ms, `next turn of ${turn.session}`).toBeLessThan(1_000);
      const after = await thread(base, turn.session);
      const earlier = before.get(turn.session) ?? [];
      expect(after.slice(0, earlier.length)).toEqual(earlier);
      expect(after.slice(earlier.length).map((m) => m.id)).toEqual([turn.ids?.user, turn.ids?.assistant]);
      expectWholeTurns(after);
    }
  }, 30_000);
});

/**
 * SIGKILL as soon as some turn has stored its user message and not yet its reply (the message is
 * written before the model answers), so that a turn dies half done. Reads the store's
 * table directly: a row of the session's transcript namespace with no assistant row under it.
 */
async function killHalfwayThroughATurn(service: Service, file: string, beforeKill: () => void): Promise<void> {
  const db = new Database(file, { readonly: true });
  const paths = SESSIONS.map((sessionId) => pathOf(namespaces.transcript({ tenantId: "default", userId: USER, sessionId })));
  const halfDone = db.prepare(
    `SELECT count(*) AS n FROM store_items u WHERE u.ns_path IN (${paths.map(() => "?").join(", ")})
       AND json_extract(u.value, '$.role') = 'user'
       AND NOT EXISTS (SELECT 1 FROM store_items a WHERE a.ns_path = u.ns_path AND json_extract(a.value, '$.parentId') = u.key)`,
  );
  const until = Date.now() + 5_000;
  while (Date.now() < until && (halfDone.get(...paths) as { n: number }).n === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  beforeKill();
  service.child.kill("SIGKILL");
  db.close();
  await service.exited;
}

/** What the dead process left: lock rows with live leases, every transcript record, and user messages with no reply. */
async function leftovers(file: string) {
  const db = new Database(file);
  const staleLocks = (db.prepare("SELECT count(*) AS n FROM turn_locks").get() as { n: number }).n;
  const store = new SqliteStore(db);
  const records = [];
  for (const sessionId of SESSIONS) records.push(...(await loadTranscript(store, { tenantId: "default", userId: USER, sessionId })));
  db.close();
  const answered = new Set(records.filter((r) => r.role === "assistant").map((r) => r.parentId));
  return { staleLocks, records, unansweredUserIds: records.filter((r) => r.role === "user" && !answered.has(r.id)).map((r) => r.id) };
}

function expectWholeTurns(messages: readonly Message[]): void {
  expect(messages.length % 2).toBe(0);
  messages.forEach((message, i) => {
    expect(message.role, `message ${i} (${message.id})`).toBe(i % 2 === 0 ? "user" : "assistant");
    expect(message.parent_id, `parent of message ${i} (${message.id})`).toBe(i === 0 ? null : messages[i - 1]?.id);
  });
}
