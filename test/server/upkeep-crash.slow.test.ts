import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/storage/sqlite/store.js";
import { namespaces } from "../../src/memory/namespaces.js";
import type { SummaryRecord } from "../../src/memory/records.js";
import { loadTranscript } from "../../src/memory/transcript.js";
import { startProvider, type Provider } from "../support/openai-provider.js";
import { freePort, startService, waitFor } from "../support/service-process.js";

/**
 * [slow] A turn's result goes out (the SSE `result` event) before its due summary runs. The
 * service (`npm start`, SQLite on a file, its model a local OpenAI-compatible stand-in whose
 * summary calls hang) is killed with SIGKILL while it waits for the summary. The summary stays
 * due: the session's next turn after a restart makes it, and so does `npm run gc`, over every
 * message, with nothing lost.
 */

const scope = { tenantId: "default", userId: "upkeep-user", sessionId: "s1" };
const isSummaryCall = (body: Record<string, unknown>) => JSON.stringify(body.messages ?? "").includes("Summarize the conversation");

let dir: string;
let provider: Provider;
const children: ReturnType<typeof startService>["child"][] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-upkeep-crash-"));
  provider = await startProvider();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  await provider.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const modelEnv = (file: string) => ({ SQLITE_PATH: file, OPENAI_API_KEY: "test", OPENAI_BASE_URL: provider.baseUrl, SUMMARY_INTERVAL: "2", SHUTDOWN_GRACE_MS: "5000" });

async function start(file: string) {
  const port = await freePort();
  const service = startService({ PORT: String(port), ...modelEnv(file) });
  children.push(service.child);
  await waitFor(() => service.output().includes("server.listening") || service.child.exitCode !== null, 30_000);
  if (service.child.exitCode !== null) throw new Error(`the service did not start:\n${service.output()}`);
  return { ...service, base: `http://127.0.0.1:${port}` };
}

async function turn(base: string, message: string): Promise<{ user: string; assistant: string }> {
  const res = await fetch(`${base}/v1/turns`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user_id: scope.userId, session_id: scope.sessionId, message }),
  });
  const body = (await res.json()) as { status: string; message_ids: { user: string; assistant: string } };
  expect([res.status, body.status]).toEqual([200, "OK"]);
  return body.message_ids;
}

/** A turn over SSE: the `result` event's message ids and when it arrived. */
async function streamedTurn(base: string, message: string): Promise<{ ids: { user: string; assistant: string }; resultAt: number }> {
  const res = await fetch(`${base}/v1/turns/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user_id: scope.userId, session_id: scope.sessionId, message }),
  });
  expect(res.status).toBe(200);
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    const match = /event: result\ndata: (.*)\n/.exec(text);
    if (match) {
      const resultAt = performance.now();
      const data = JSON.parse(match[1] ?? "{}") as { status: string; message_ids: { user: string; assistant: string } };
      expect(data.status).toBe("OK");
      return { ids: data.message_ids, resultAt };
    }
  }
  throw new Error(`no result event:\n${text}`);
}

/** Two turns (a summary is due after the second); the service is killed while the summary call hangs. */
async function answeredThenKilled(file: string): Promise<string[]> {
  provider.hold = isSummaryCall;
  provider.requests.length = 0;
  const service = await start(file);
  const first = await turn(service.base, "My parcel 4471 to Chiang Mai is late");
  const { ids: second, resultAt } = await streamedTurn(service.base, "Please send it by express instead");
  // The result is out; only now does the summary call start, and it never gets an answer.
  await waitFor(() => provider.requests.some((r) => isSummaryCall(r.body)), 10_000);
  const summaryAt = provider.requests.find((r) => isSummaryCall(r.body))?.at ?? 0;
  expect(resultAt).toBeLessThan(summaryAt);
  service.child.kill("SIGKILL");
  expect(await service.exited).toBeNull();
  provider.hold = null;
  provider.requests.length = 0;
  const ids = [first.user, first.assistant, second.user, second.assistant];
  const store = SqliteStore.open(file);
  try {
    expect((await loadTranscript(store, scope)).map((m) => m.id)).toEqual(ids);
    expect(await store.search(namespaces.summaries(scope))).toEqual([]);
  } finally {
    store.close();
  }
  return ids;
}

async function summariesOf(file: string): Promise<{ summaries: SummaryRecord[]; transcript: string[] }> {
  const store = SqliteStore.open(file);
  try {
    const summaries = (await store.search(namespaces.summaries(scope))).map((item) => item.value as SummaryRecord);
    return { summaries, transcript: (await loadTranscript(store, scope)).map((m) => m.id) };
  } finally {
    store.close();
  }
}

describe("a summary due when the process died after the result", () => {
  it("is made by the session's next turn after a restart, over every message", async () => {
    const file = path.join(dir, "next-turn.db");
    const ids = await answeredThenKilled(file);
    const service = await start(file);
    const third = await turn(service.base, "And what does express cost?");
    service.child.kill("SIGTERM"); // a clean stop waits for the upkeep of answered turns
    expect(await service.exited).toBe(0);
    const { summaries, transcript } = await summariesOf(file);
    const all = [...ids, third.user, third.assistant];
    expect(transcript).toEqual(all);
    expect(summaries).toHaveLength(1);
    expect(summaries[0]?.messageIds).toEqual(all);
    expect(summaries[0]?.method).toBe("model");
    expect(provider.requests.filter((r) => isSummaryCall(r.body))).toHaveLength(1);
  }, 90_000);

  it("is made by `npm run gc`, once", async () => {
    const file = path.join(dir, "gc.db");
    const ids = await answeredThenKilled(file);
    const gc = () => runGc(file);
    const first = await gc();
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ backend: "sqlite", summaries_made: 1 });
    const { summaries, transcript } = await summariesOf(file);
    expect(transcript).toEqual(ids);
    expect(summaries).toHaveLength(1);
    expect(summaries[0]?.messageIds).toEqual(ids);
    expect(summaries[0]?.method).toBe("model");
    const again = await gc();
    expect(JSON.parse(again.stdout)).toMatchObject({ summaries_made: 0 });
    expect((await summariesOf(file)).summaries).toHaveLength(1);
  }, 90_000);
});

function runGc(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.resolve("src/cli/gc.ts")], {
    env: { ...process.env, API_KEYS: "", LOG_LEVEL: "info", MEMORY_BACKEND: "sqlite", ...modelEnv(file) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
}
