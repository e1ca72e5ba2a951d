import { afterEach, describe, expect, it } from "vitest";
import { createMemoryGraphClient, MemoryGraphApiError, type ClientOptions, type MemoryGraphClient, type TurnEvent } from "../../src/entries/client.js";
import { KEY_A, streamingModel, testServer, type TestServer } from "../server/helpers.js";

let server: TestServer;
afterEach(async () => server.close());

/** A client of the test server's app, sending through `wrap` (a fetch that may lose answers). */
function clientOf(options: Partial<ClientOptions> & { wrap?: (send: (r: Request) => Promise<Response>) => (r: Request) => Promise<Response> } = {}): MemoryGraphClient {
  const send = (request: Request) => Promise.resolve(server.app.fetch(request));
  return createMemoryGraphClient({ baseUrl: "http://memory.test", apiKey: KEY_A, baseDelayMs: 1, ...options, fetch: options.wrap ? options.wrap(send) : send });
}

const collect = async (events: AsyncIterable<TurnEvent>) => {
  const all: TurnEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
};

describe("memory-graph/client", () => {
  it("answers a turn, typed, and reads the memory it left", async () => {
    server = await testServer();
    const client = clientOf();
    const result = await client.createTurn({ user_id: "u1", session_id: "s1", message: "Hello, my name is Anong" });
    expect(result.status).toBe("OK");
    expect(result.candidate?.model).toBe("offline");
    const { messages } = await client.sessionMessages("u1", "s1");
    expect(messages.map((m) => [m.role, m.id])).toEqual([
      ["user", result.message_ids.user],
      ["assistant", result.message_ids.assistant],
    ]);
    // The client named the message: its id is the turn's idempotency key.
    expect(result.message_ids.user).toMatch(/^[0-9a-f-]{36}$/);
    const found = await client.searchMemory("u1", { q: "Anong" });
    expect(found.hits.map((hit) => hit.session_id)).toContain("s1");
  });

  it("sends a lost answer's turn again with the same message_id: one turn stored, the stored result replayed", async () => {
    server = await testServer();
    let lost = 0;
    // The service answers the first try, but the answer never reaches the client.
    const client = clientOf({
      wrap: (send) => async (request) => {
        const response = await send(request);
        if (lost++ === 0) throw new TypeError("fetch failed: socket hang up");
        return response;
      },
    });
    const result = await client.createTurn({ user_id: "u1", session_id: "s1", message: "My cat is Mali" });
    expect(lost).toBe(2);
    expect(result.replayed).toBe(true);
    expect((await client.sessionMessages("u1", "s1")).messages).toHaveLength(2);
  });

  it("throws typed errors by code: the field of a bad request, Retry-After of the rate limit, no answer at all", async () => {
    server = await testServer({}, { rateLimitPerMinute: 1 });
    const client = clientOf();
    const bad = await client.createTurn({ user_id: "a/b", session_id: "s1", message: "hi" }).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(MemoryGraphApiError);
    expect(bad).toMatchObject({ code: expect.stringMatching(/^INVALID_/), status: 400, field: "user_id" });
    const limited = await client.userMemory("u1").catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(MemoryGraphApiError);
    const error = limited as MemoryGraphApiError;
    expect(error.is("RATE_LIMITED")).toBe(true);
    expect(error.status).toBe(429);
    expect(error.retryAfterSeconds).toBeGreaterThan(50);
    const down = clientOf({ retries: 1, wrap: () => () => Promise.reject(new TypeError("fetch failed")) });
    await expect(down.userMemory("u1")).rejects.toMatchObject({ code: "NETWORK_ERROR", status: 0 });
  });

  it("streams a turn as typed events: tokens, then the result", async () => {
    server = await testServer({ chatModel: streamingModel(["Hi there"]) });
    const events = await collect(clientOf().streamTurn({ user_id: "u1", session_id: "s1", message: "hello" }));
    const tokens = events.filter((e) => e.event === "token").map((e) => e.data.text);
    expect(tokens.join("")).toBe("Hi there");
    const last = events.at(-1)!;
    expect(last.event).toBe("result");
    if (last.event === "result") expect(last.data.candidate?.text).toBe("Hi there");
  });

  it("finishes a broken stream by asking for the turn again with the same message_id", async () => {
    server = await testServer({ chatModel: streamingModel(["Hi there"]) });
    let streams = 0;
    // The first stream breaks after its first event.
    const client = clientOf({
      wrap: (send) => async (request) => {
        const response = await send(request);
        if (!request.url.endsWith("/v1/turns/stream") || streams++ > 0) return response;
        const reader = response.body!.getReader();
        const cut = new ReadableStream<Uint8Array>({
          async pull(controller) {
            const { value } = await reader.read();
            if (value) controller.enqueue(value);
            controller.error(new TypeError("terminated"));
          },
        });
        return new Response(cut, { status: response.status, headers: response.headers });
      },
    });
    const events = await collect(client.streamTurn({ user_id: "u1", session_id: "s1", message: "hello", message_id: "m-1" }));
    const last = events.at(-1)!;
    expect(last.event).toBe("result");
    if (last.event === "result") expect(last.data).toMatchObject({ replayed: true, candidate: { text: "Hi there" }, message_ids: { user: "m-1" } });
    expect((await client.sessionMessages("u1", "s1")).messages).toHaveLength(2);
  });

  it("reports readiness without retrying", async () => {
    server = await testServer({}, { isDraining: () => true });
    let calls = 0;
    const client = clientOf({ wrap: (send) => (request) => ((calls += 1), send(request)) });
    expect(await client.ready()).toMatchObject({ ready: false, body: { error: { code: "DRAINING" } } });
    expect(calls).toBe(1);
  });
});
