import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProvider, type Provider } from "../support/openai-provider.js";
import { createTempDatabase } from "../support/postgres.js";
import { freePort, startService, waitFor } from "../support/service-process.js";

/**
 * [slow] With a model classifying, a turn's result goes out once the reply is stored, before the
 * classification and the session's checkpoint. The service (`npm start`, its model a local
 * OpenAI-compatible stand-in whose classification calls hang) answers a turn 200 and is killed
 * with SIGKILL before that checkpoint. The answered turn stays on the session's thread: the
 * thread read after it shows it, and the session's next turn — on a restarted process, or on
 * another instance that was up all along — follows its reply.
 */

const USER = "answered-user";
const isClassifyCall = (body: Record<string, unknown>) => Array.isArray(body.tools) && body.tools.length > 0;

interface Message {
  id: string;
  role: "user" | "assistant";
  parent_id: string | null;
}

let provider: Provider;
const children: ReturnType<typeof startService>["child"][] = [];

beforeAll(async () => {
  provider = await startProvider();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await provider.close();
});

async function start(env: Record<string, string>) {
  const port = await freePort();
  const service = startService({ PORT: String(port), OPENAI_API_KEY: "test", OPENAI_BASE_URL: provider.baseUrl, SHUTDOWN_GRACE_MS: "1000", ...env });
  children.push(service.child);
  await waitFor(() => service.output().includes("server.listening") || service.child.exitCode !== null, 30_000);
  if (service.child.exitCode !== null) throw new Error(`the service did not start:\n${service.output()}`);
  return { ...service, base: `http://127.0.0.1:${port}` };
}

async function postTurn(base: string, session: string, message: string, messageId?: string) {
  const res = await fetch(`${base}/v1/turns`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user_id: USER, session_id: session, message, ...(messageId ? { message_id: messageId } : {}) }),
    signal: AbortSignal.timeout(20_000),
  });
  const body = (await res.json()) as { status: string; replayed: boolean; candidate: { id: string; text: string } | null; message_ids: { user: string; assistant: string } };
  expect([res.status, body.status]).toEqual([200, "OK"]);
  return body;
}

const turn = async (base: string, session: string, message: string, messageId?: string) => (await postTurn(base, session, message, messageId)).message_ids;

async function thread(base: string, session: string): Promise<Message[]> {
  const res = await fetch(`${base}/v1/sessions/${session}/messages?user_id=${USER}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { messages: Message[] }).messages;
}

/** One turn answered and classified; a second answered while its classification hangs, then the process is killed. */
async function answeredThenKilled(service: Awaited<ReturnType<typeof start>>, session: string): Promise<string[]> {
  provider.hold = null;
  provider.requests.length = 0;
  const first = await turn(service.base, session, "My parcel 4471 to Chiang Mai is late");
  // The first turn's checkpoint is written once its classification is in; the next turn waits for it.
  // Its answer can come before its classification is asked (the reply's vector comes after the
  // answer), so the hold begins once that call has reached the stand-in, which then answers it.
  await waitFor(() => provider.requests.some((r) => isClassifyCall(r.body)), 10_000);
  provider.hold = isClassifyCall;
  provider.requests.length = 0;
  const second = await turn(service.base, session, "Please send it by express instead, my sister needs it", `${session}-express`);
  expect(provider.requests.filter((r) => isClassifyCall(r.body))).toHaveLength(1); // held: never answered
  service.child.kill("SIGKILL");
  await service.exited;
  provider.hold = null;
  return [first.user, first.assistant, second.user, second.assistant];
}

function expectWholeTurns(messages: readonly Message[]): void {
  expect(messages.length % 2).toBe(0);
  messages.forEach((message, i) => {
    expect(message.role, `message ${i}`).toBe(i % 2 === 0 ? "user" : "assistant");
    expect(message.parent_id, `parent of message ${i}`).toBe(i === 0 ? null : messages[i - 1]?.id);
  });
}

describe("[slow] a turn answered 200 before its checkpoint, then SIGKILL", () => {
  it("on SQLite: stays on the thread after a restart, and the next turn follows its reply", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-answered-"));
    try {
      const env = { SQLITE_PATH: path.join(dir, "memory.db") };
      const answered = await answeredThenKilled(await start(env), "s1");
      const again = await start(env);
      expect((await thread(again.base, "s1")).map((m) => m.id)).toEqual(answered);
      // Its client, retrying with the same message_id, gets that reply again: nothing is written.
      const retried = await postTurn(again.base, "s1", "Please send it by express instead, my sister needs it", "s1-express");
      expect(retried.replayed).toBe(true);
      expect(retried.message_ids).toEqual({ user: answered[2], assistant: answered[3] });
      expect(retried.candidate?.text).toContain("Please send it by express instead, my sister needs it");
      expect(retried.candidate?.id).toBe(answered[3]);
      expect((await thread(again.base, "s1")).map((m) => m.id)).toEqual(answered);
      const third = await turn(again.base, "s1", "And what does express cost?");
      const after = await thread(again.base, "s1");
      expect(after.map((m) => m.id)).toEqual([...answered, third.user, third.assistant]);
      expectWholeTurns(after);
      // The model saw the answered turn in the next turn's history.
      const prompt = JSON.stringify(provider.requests.find((r) => r.path.endsWith("/chat/completions") && !isClassifyCall(r.body) && JSON.stringify(r.body).includes("what does express cost"))?.body ?? {});
      expect(prompt).toContain("Please send it by express instead, my sister needs it");
      again.child.kill("SIGTERM");
      expect(await again.exited).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("on Postgres: another instance, up all along, keeps it on the thread and follows its reply", async () => {
    const db = await createTempDatabase();
    try {
      const env = { MEMORY_BACKEND: "postgres", DATABASE_URL: db.url };
      const dying = await start(env);
      const other = await start(env);
      const answered = await answeredThenKilled(dying, "s2");
      expect((await thread(other.base, "s2")).map((m) => m.id)).toEqual(answered);
      const third = await turn(other.base, "s2", "And what does express cost?");
      const after = await thread(other.base, "s2");
      expect(after.map((m) => m.id)).toEqual([...answered, third.user, third.assistant]);
      expectWholeTurns(after);
      other.child.kill("SIGTERM");
      expect(await other.exited).toBe(0);
    } finally {
      await db.drop();
    }
  }, 120_000);
});
