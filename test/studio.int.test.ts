import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./support/service-process.js";

/** The LangGraph dev server (what `npm run studio` starts), driven through its REST API. */
let child: ChildProcess | undefined;
let base = "";
let output = "";

async function post<T>(route: string, body: unknown): Promise<T> {
  const response = await fetch(`${base}${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(path.resolve("node_modules/.bin/langgraphjs"), ["dev", "--host", "127.0.0.1", "--port", String(port), "--no-browser"], {
    env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", LOG_LEVEL: "warn" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const ok = await fetch(`${base}/ok`).then((r) => r.ok).catch(() => false);
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the dev server did not start:\n${output.slice(-2000)}`);
}, 130_000);

afterAll(() => {
  child?.kill("SIGTERM");
});

describe("npm run studio (LangGraph dev server)", () => {
  it("runs two turns on one thread and reads the thread state back", async () => {
    const { thread_id } = await post<{ thread_id: string }>("/threads", {});
    const input = (message: string) => ({ assistant_id: "memory_graph", input: { input: { tenantId: "t", userId: "u", sessionId: "s", message } } });
    const first = await post<{ status: string }>(`/threads/${thread_id}/runs/wait`, input("My name is Anong"));
    expect(first.status).toBe("OK");
    const second = await post<{ status: string; candidate: { text: string; model: string } }>(`/threads/${thread_id}/runs/wait`, input("What is my name?"));
    expect(second.candidate.model).toBe("offline");
    expect(second.candidate.text).toContain("Anong");
    const state = (await (await fetch(`${base}/threads/${thread_id}/state`)).json()) as { values: { messages: { content: string; type: string }[] } };
    expect(state.values.messages.filter((m) => m.type === "human").map((m) => m.content)).toEqual(["My name is Anong", "What is my name?"]);
  }, 60_000);

  it("refuses a run on a thread bound to another tenant and user: THREAD_SCOPE_MISMATCH, nothing of alice's returned", async () => {
    const { thread_id } = await post<{ thread_id: string }>("/threads", {});
    const run = (who: Record<string, string>, message: string) =>
      fetch(`${base}/threads/${thread_id}/runs/wait`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ assistant_id: "memory_graph", input: { input: { ...who, sessionId: "s", message } } }),
      });
    const first = await run({ tenantId: "t1", userId: "alice" }, "My secret is 4242");
    expect(((await first.json()) as { status: string }).status).toBe("OK");
    const stolen = await run({ tenantId: "t2", userId: "mallory" }, "What is my secret?");
    const text = await stolen.text();
    expect(text).toContain("THREAD_SCOPE_MISMATCH");
    expect(text).not.toContain("4242");
    const state = (await (await fetch(`${base}/threads/${thread_id}/state`)).json()) as { values: { scope: unknown; messages: { content: string }[] } };
    expect(state.values.scope).toEqual({ tenantId: "t1", userId: "alice", sessionId: "s" });
    expect(state.values.messages.map((m) => m.content)).not.toContain("What is my secret?");
  }, 60_000);
});
