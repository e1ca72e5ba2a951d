import { randomUUID } from "node:crypto";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./support/service-process.js";

/** Tenants of this run: the dev server keeps its store in .langgraph_api between runs. */
const RUN = randomUUID().slice(0, 8);

/** The LangGraph dev server (what `npm run studio` starts), driven through its REST API and the official SDK. */
let child: ChildProcess | undefined;
let base = "";
let output = "";
let client: Client;

const GRAPH = "memory_graph";

interface TurnValues {
  status: string;
  candidate: { text: string; model: string } | null;
  messages: { content: string; type: string }[];
  scope: unknown;
}

async function post<T>(route: string, body: unknown): Promise<T> {
  const response = await fetch(`${base}${route}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return (await response.json()) as T;
}

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  client = new Client({ apiUrl: base });
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
    const input = (message: string) => ({ assistant_id: GRAPH, input: { tenantId: `t-${RUN}`, userId: "u", sessionId: "s", message } });
    const first = await post<TurnValues>(`/threads/${thread_id}/runs/wait`, input("My name is Anong"));
    expect(first.status).toBe("OK");
    const second = await post<TurnValues>(`/threads/${thread_id}/runs/wait`, input("What is my name?"));
    expect(second.candidate?.model).toBe("offline");
    expect(second.candidate?.text).toContain("Anong");
    const state = (await (await fetch(`${base}/threads/${thread_id}/state`)).json()) as { values: TurnValues };
    expect(state.values.messages.filter((m) => m.type === "human").map((m) => m.content)).toEqual(["My name is Anong", "What is my name?"]);
  }, 60_000);

  it("refuses a run on a thread bound to another tenant and user: THREAD_SCOPE_MISMATCH, nothing of alice's returned", async () => {
    const { thread_id } = await post<{ thread_id: string }>("/threads", {});
    const run = (who: Record<string, string>, message: string) =>
      fetch(`${base}/threads/${thread_id}/runs/wait`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ assistant_id: GRAPH, input: { ...who, sessionId: "s", message } }),
      });
    const first = await run({ tenantId: `t1-${RUN}`, userId: "alice" }, "My secret is 4242");
    expect(((await first.json()) as { status: string }).status).toBe("OK");
    const stolen = await run({ tenantId: `t2-${RUN}`, userId: "mallory" }, "What is my secret?");
    const text = await stolen.text();
    expect(text).toContain("THREAD_SCOPE_MISMATCH");
    expect(text).not.toContain("4242");
    const state = (await (await fetch(`${base}/threads/${thread_id}/state`)).json()) as { values: { scope: unknown; messages: { content: string }[] } };
    expect(state.values.scope).toEqual({ tenantId: `t1-${RUN}`, userId: "alice", sessionId: "s" });
    expect(state.values.messages.map((m) => m.content)).not.toContain("What is my secret?");
  }, 60_000);
});

describe("the LangGraph SDK against npm run studio", () => {
  const who = { tenantId: `sdk-${RUN}`, userId: "anong", sessionId: "s1" };

  it("reports the turn input's fields as the graph's input schema (what Studio's input form shows)", async () => {
    const schemas = await client.assistants.getSchemas(GRAPH);
    const input = schemas.input_schema as { properties: Record<string, { type?: string; description?: string }> };
    expect(Object.keys(input.properties)).toEqual(
      expect.arrayContaining(["tenantId", "userId", "sessionId", "message", "prompts", "messageId", "parentMessageId", "files", "metadata", "useMemory", "topK", "memorySections", "remember"]),
    );
    expect(input.properties.message?.type).toBe("string");
    expect(input.properties.tenantId?.description).toMatch(/tenant/i);
  }, 60_000);

  it("takes the natural input: wait for a run, stream the next one, read the history", async () => {
    const thread = await client.threads.create();
    const first = (await client.runs.wait(thread.thread_id, GRAPH, { input: { ...who, message: "My name is Anong" } })) as unknown as TurnValues;
    expect(first.status).toBe("OK");
    expect(first.candidate?.model).toBe("offline");

    const events: { event: string; data: unknown }[] = [];
    for await (const part of client.runs.stream(thread.thread_id, GRAPH, {
      input: { ...who, message: "What is my name?" },
      streamMode: ["updates", "messages-tuple", "values"],
    })) {
      events.push(part);
    }
    expect(events.filter((e) => e.event === "error")).toEqual([]);
    const updatedNodes = events.filter((e) => e.event === "updates").flatMap((e) => Object.keys(e.data as object));
    expect(updatedNodes).toEqual(expect.arrayContaining(["ingest_prompt", "recall", "classify_event", "call_model", "build_candidate"]));
    const replies = events
      .filter((e) => e.event === "messages")
      .map((e) => e.data as [{ type: string; content: string }, { langgraph_node?: string }])
      .filter(([message, meta]) => message.type.startsWith("ai") && meta.langgraph_node === "call_model");
    expect(replies.map(([message]) => message.content).join("")).toContain("Anong");
    const last = events.filter((e) => e.event === "values").at(-1)?.data as TurnValues;
    expect(last.status).toBe("OK");
    expect(last.candidate?.text).toContain("Anong");

    const history = await client.threads.getHistory<TurnValues>(thread.thread_id, { limit: 100 });
    expect(history[0]?.next).toEqual([]);
    expect(history[0]?.values.messages.filter((m) => m.type === "human").map((m) => m.content)).toEqual(["My name is Anong", "What is my name?"]);
    expect(history[0]?.values.scope).toEqual(who);
    // Newest first: both turns went through every node, and no run is left waiting on ingest_prompt.
    const steps = history.map((snapshot) => snapshot.next.join(","));
    expect(steps.filter((next) => next === "ingest_prompt")).toHaveLength(2);
    expect(steps.filter((next) => next === "build_candidate")).toHaveLength(2);
    // The input fields are read by ingest_prompt and not kept: the finished state holds the validated input only.
    expect(history[0]?.values).not.toHaveProperty("message");
    expect(history[0]?.values).toMatchObject({ input: { ...who, message: "What is my name?" } });
  }, 90_000);

  it("refuses a bad input before anything runs, and a failed run leaves nothing behind for the next one", async () => {
    const thread = await client.threads.create();
    await expect(client.runs.wait(thread.thread_id, GRAPH, { input: { input: { ...who, message: "nested" } } })).rejects.toThrow(/INVALID_INPUT: tenantId: /);
    await expect(client.runs.wait(thread.thread_id, GRAPH, { input: { ...who, userId: "a/b", message: "bad id" } })).rejects.toThrow(/INVALID_INPUT: userId: /);
    expect((await client.threads.getState(thread.thread_id)).next).toEqual([]);
    // A run that fails inside ingest_prompt (an unknown parent); the next one, without a parent, is not affected.
    await expect(client.runs.wait(thread.thread_id, GRAPH, { input: { ...who, message: "again", parentMessageId: "nope" } })).rejects.toThrow(/UNKNOWN_PARENT: parentMessageId: /);
    const next = (await client.runs.wait(thread.thread_id, GRAPH, { input: { ...who, message: "Hello" } })) as unknown as TurnValues;
    expect(next.status).toBe("OK");
    expect(next.messages.map((m) => m.content)).toContain("Hello");
  }, 90_000);

  it("takes the memory switches: memory off, incognito, topK and sections; the state says why memory was used", async () => {
    const me = { tenantId: `sdk-${RUN}`, userId: "switches", sessionId: "s1" };
    const thread = await client.threads.create();
    const run = async (input: Record<string, unknown>) =>
      (await client.runs.wait(thread.thread_id, GRAPH, { input: { ...me, ...input } })) as unknown as TurnValues & {
        memoryText: { text: string } | null;
        memoryUse: { needMemory: boolean; reason: string } | null;
        recalled: { similar: unknown[]; recentTurns: unknown[] } | null;
        event: { intent: string; saved: boolean } | null;
      };
    await run({ message: "My name is Anong" });
    const off = await run({ message: "What is my name?", useMemory: false });
    expect(off.memoryText?.text).toBe("");
    expect(off.candidate?.text).not.toContain("Anong");
    expect(off.memoryUse).toMatchObject({ needMemory: true, reason: expect.stringMatching(/use_memory false/) });
    const sections = await run({ message: "What is my name?", memorySections: ["facts"], topK: 0 });
    expect(sections.candidate?.text).toContain("Anong");
    expect(sections.recalled?.similar).toEqual([]);
    expect(sections.recalled?.recentTurns).toEqual([]);
    expect(sections.event?.intent).toEqual(expect.any(String));
    const incognito = await run({ message: "My phone is 555-0100", remember: false });
    expect(incognito.event?.saved).toBe(false);
    const other = await client.threads.create();
    const later = (await client.runs.wait(other.thread_id, GRAPH, { input: { ...me, sessionId: "s2", message: "What is my phone number?" } })) as unknown as TurnValues;
    expect(later.candidate?.text).not.toContain("555-0100");
    await expect(client.runs.wait(thread.thread_id, GRAPH, { input: { ...me, message: "hi", topK: 99 } })).rejects.toThrow(/INVALID_INPUT: topK: /);
  }, 90_000);
});

describe("Studio speaks our errors", () => {
  const who = { tenantId: `errors-${RUN}`, userId: "anong", sessionId: "s1" };

  /** The events of one streamed run (what Studio reads), and the thread it ran on. */
  async function streamRun(input: Record<string, unknown>) {
    const thread = await client.threads.create();
    const events: { event: string; data: unknown }[] = [];
    for await (const part of client.runs.stream(thread.thread_id, GRAPH, { input, streamMode: ["values", "updates"] })) events.push(part);
    return { thread, events, errors: events.filter((e) => e.event === "error").map((e) => e.data as { error: string; message: string }) };
  }

  it("the input schema names the required fields and describes every field", async () => {
    const { input_schema } = await client.assistants.getSchemas(GRAPH);
    const schema = input_schema as { required?: string[]; description?: string; additionalProperties?: boolean; properties: Record<string, { description?: string }> };
    expect(schema.required).toEqual(["tenantId", "userId", "sessionId"]);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.description).toMatch(/skipped: status SKIP.*EMPTY_PROMPT/);
    const undescribed = Object.entries(schema.properties).filter(([, field]) => !field.description?.trim());
    expect(undescribed.map(([key]) => key)).toEqual([]);
    expect(Object.keys(schema.properties)).toHaveLength(13);
  }, 60_000);

  it.each([
    { what: "a bad id", input: { ...who, userId: "a/b", message: "hi" }, error: /^INVALID_INPUT: userId: must not contain '\/'$/ },
    { what: "a missing tenant", input: { userId: "u", sessionId: "s", message: "hi" }, error: /^INVALID_INPUT: tenantId: / },
    { what: "an unknown field", input: { ...who, message: "hi", mesage: "typo" }, error: /^INVALID_INPUT: input: .*mesage/ },
    { what: "a field of the wrong type", input: { ...who, message: "hi", useMemory: "no" }, error: /^INVALID_INPUT: useMemory: / },
    { what: "a prompt over the limit", input: { ...who, message: "x".repeat(32_001) }, error: /^PROMPT_TOO_LONG: message: the prompt has 32001 characters; the limit is 32000$/ },
    { what: "text with NUL", input: { ...who, message: "a\u0000b" }, error: /^INVALID_TEXT: message/ },
  ])("$what: the run ends in our error (code, field, message) before any node runs", async ({ input, error }) => {
    const run = await streamRun(input);
    expect(run.errors).toEqual([{ error: "MemoryGraphError", message: expect.stringMatching(error) }]);
    expect(run.events.filter((e) => e.event === "updates")).toEqual([]);
    const state = await client.threads.getState(run.thread.thread_id);
    expect(state.values).toEqual({});
    expect((await client.threads.get(run.thread.thread_id)).status).toBe("error");
  }, 60_000);

  it("an input error found against the store (an unknown parent) carries its code too", async () => {
    const run = await streamRun({ ...who, message: "again", parentMessageId: "no-such-message" });
    expect(run.errors).toEqual([{ error: "MemoryGraphError", message: "UNKNOWN_PARENT: parentMessageId: no message no-such-message in this session" }]);
  }, 60_000);

  it("a run with no message says why it was skipped: status SKIP, EMPTY_PROMPT in its errors", async () => {
    const run = await streamRun({ ...who, message: "   " });
    expect(run.errors).toEqual([]);
    const last = run.events.filter((e) => e.event === "values").at(-1)?.data as { status: string; errors: { node: string; code: string; message: string }[]; candidate: unknown };
    expect(last.status).toBe("SKIP");
    expect(last.candidate).toBeNull();
    expect(last.errors).toEqual([{ node: "ingest_prompt", code: "EMPTY_PROMPT", message: expect.stringMatching(/no message or prompt text.*SKIP/) }]);
    const nodes = run.events.filter((e) => e.event === "updates").flatMap((e) => Object.keys(e.data as object));
    expect(nodes).toEqual(["ingest_prompt"]);
  }, 60_000);
});
