import { afterEach, describe, expect, it, vi } from "vitest";
import type { MemoryGraph } from "../../src/app/create-memory-graph.js";
import { TurnAdmission } from "../../src/server/admission.js";
import { createServer } from "../../src/server/create-server.js";
import { KEY_A, tenantItems, testServer, type TestServer } from "./helpers.js";

describe("TurnAdmission", () => {
  afterEach(() => vi.useRealTimers());

  it("admits up to maxConcurrent at once and refuses the next with OVERLOADED when it may not wait", async () => {
    const admission = new TurnAdmission({ maxConcurrent: 2, maxWaitMs: 0 });
    const first = await admission.enter();
    await admission.enter();
    await expect(admission.enter()).rejects.toMatchObject({ code: "OVERLOADED", retryAfterSeconds: 1 });
    first();
    first(); // a second release of the same place frees nothing more
    await admission.enter();
    await expect(admission.enter()).rejects.toMatchObject({ code: "OVERLOADED" });
    expect(admission.stats).toEqual({ running: 2, waiting: 0, refused: 2 });
  });

  it("hands a freed place to the longest waiting turn, and refuses a turn that waited maxWaitMs", async () => {
    vi.useFakeTimers();
    const admission = new TurnAdmission({ maxConcurrent: 1, maxWaitMs: 1000 });
    const release = await admission.enter();
    const order: string[] = [];
    const a = admission.enter().then((done) => (order.push("a"), done));
    const b = admission.enter().then(
      () => "admitted",
      (error: unknown) => error,
    );
    expect(admission.stats).toMatchObject({ running: 1, waiting: 2 });
    release();
    const releaseA = await a;
    expect(order).toEqual(["a"]);
    expect(admission.stats).toMatchObject({ running: 1, waiting: 1 });
    await vi.advanceTimersByTimeAsync(1000);
    expect(await b).toMatchObject({ code: "OVERLOADED" });
    releaseA();
    expect(admission.stats).toEqual({ running: 0, waiting: 0, refused: 1 });
  });

  it("bounds nothing with maxConcurrent 0", async () => {
    const admission = new TurnAdmission({ maxConcurrent: 0, maxWaitMs: 0 });
    for (let i = 0; i < 100; i++) await admission.enter();
    expect(admission.stats.running).toBe(100);
  });
});

describe("turn routes under admission control", () => {
  let server: TestServer | undefined;
  afterEach(async () => server?.close());

  /** The app over `server`'s graph, whose turns wait until `open()` is called, one turn at a time. */
  function heldApp(base: TestServer) {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const memory = Object.create(base.memory) as MemoryGraph;
    memory.runTurn = async (input) => (await gate, base.memory.runTurn(input));
    memory.streamTurn = async (input, onToken, options) => (await gate, base.memory.streamTurn(input, onToken, options));
    const app = createServer({ memory, apiKeys: `tenantA:${KEY_A}`, admission: { maxConcurrent: 1, maxWaitMs: 0 } });
    const post = (path: string, body: unknown) =>
      Promise.resolve(app.request(path, { method: "POST", headers: { authorization: `Bearer ${KEY_A}`, "content-type": "application/json" }, body: JSON.stringify(body) }));
    return { post, open };
  }

  it("answers a turn past capacity 503 OVERLOADED with Retry-After, runs and stores nothing of it, and takes turns again once one ends", async () => {
    server = await testServer();
    const { post, open } = heldApp(server);
    const running = post("/v1/turns", { user_id: "u1", session_id: "s1", message: "first" });
    const refused = await post("/v1/turns", { user_id: "u2", session_id: "s1", message: "second" });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await refused.json()).toMatchObject({ error: { code: "OVERLOADED" } });
    const streamed = await post("/v1/turns/stream", { user_id: "u2", session_id: "s1", message: "third" });
    expect(streamed.status).toBe(503);
    expect(streamed.headers.get("content-type")).toContain("application/json");
    open();
    expect((await running).status).toBe(200);
    const items = await tenantItems(server.memory, "tenantA");
    expect(items.some((item) => item.namespace.includes("u2"))).toBe(false);
    expect((await post("/v1/turns", { user_id: "u2", session_id: "s1", message: "again" })).status).toBe(200);
  });
});
