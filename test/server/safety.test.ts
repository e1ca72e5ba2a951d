import { afterEach, describe, expect, it, vi } from "vitest";
import { KEY_A, KEY_B, tenantItems, testServer, type TestServer } from "./helpers.js";

let server: TestServer;
afterEach(async () => server.close());

const base = { user_id: "u1", session_id: "s1", message: "hello" };

async function expectError(res: Response, status: number, error: Record<string, unknown> = {}) {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { error: Record<string, unknown> };
  expect(typeof body.error.code).toBe("string");
  expect(typeof body.error.message).toBe("string");
  expect(body.error).toMatchObject(error);
}

describe("API keys and tenancy", () => {
  it("answers 401 without a key or with a wrong one, and opens health routes to all", async () => {
    server = await testServer();
    await expectError(await server.call("POST", "/v1/turns", { key: null, body: base }), 401, { code: "UNAUTHORIZED" });
    await expectError(await server.call("POST", "/v1/turns", { key: "nope", body: base }), 401);
    await expectError(await server.call("GET", "/v1/users/u1/memory", { headers: { authorization: KEY_A }, key: null }), 401);
    expect((await server.call("GET", "/healthz", { key: null })).status).toBe(200);
    expect((await server.call("GET", "/readyz", { key: null })).status).toBe(200);
    expect(await tenantItems(server.memory, "tenantA")).toHaveLength(0);
  });

  it.each([
    { authorization: undefined, message: "missing API key (Authorization: Bearer …)" },
    { authorization: "Basic Zm9vOmJhcg==", message: "missing API key (Authorization: Bearer …)" },
    { authorization: `Bearer ${KEY_A} extra`, message: "missing API key (Authorization: Bearer …)" },
    { authorization: "Bearer \u00ff\u00fe", message: "missing API key (Authorization: Bearer …)" },
    { authorization: "Bearer wrong-key", message: "invalid API key" },
  ])("answers $authorization with 401 UNAUTHORIZED, the error body and WWW-Authenticate: Bearer", async ({ authorization, message }) => {
    server = await testServer();
    const res = await server.call("GET", "/v1/users/u1/memory", { key: null, headers: { "x-request-id": "auth.case:1", ...(authorization === undefined ? {} : { authorization }) } });
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
    expect(res.headers.get("x-request-id")).toBe("auth.case:1");
    expect(res.headers.get("content-type")).toContain("application/json");
    await expectError(res, 401, { code: "UNAUTHORIZED", message });
  });

  it("takes a key with any spacing after Bearer, in any case", async () => {
    server = await testServer();
    expect((await server.call("GET", "/v1/users/u1/memory", { key: null, headers: { authorization: `bearer   ${KEY_A}` } })).status).toBe(200);
  });

  it("keeps tenants apart even with the same user and session ids", async () => {
    server = await testServer();
    expect((await server.call("POST", "/v1/turns", { key: KEY_A, body: { ...base, message: "my email is a@example.com" } })).status).toBe(200);
    // Tenant B (key given as a sha256 digest) sees nothing of tenant A.
    await expectError(await server.call("GET", "/v1/sessions/s1/messages?user_id=u1", { key: KEY_B }), 404, { code: "SESSION_NOT_FOUND" });
    const memoryB = (await (await server.call("GET", "/v1/users/u1/memory", { key: KEY_B })).json()) as Record<string, unknown[]>;
    expect([memoryB.events, memoryB.facts, memoryB.summaries]).toEqual([[], [], []]);
    const forgetB = (await (await server.call("DELETE", "/v1/users/u1", { key: KEY_B })).json()) as { deleted: Record<string, number> };
    expect(forgetB.deleted).toMatchObject({ items: 0, sessions: 0, threads: 0 });
    expect((await server.call("GET", "/v1/sessions/s1/messages?user_id=u1", { key: KEY_A })).status).toBe(200);
    // B's own turn on the same ids starts a fresh thread.
    await server.call("POST", "/v1/turns", { key: KEY_B, body: base });
    const threadB = (await (await server.call("GET", "/v1/sessions/s1/messages?user_id=u1", { key: KEY_B })).json()) as { messages: unknown[] };
    expect(threadB.messages).toHaveLength(2);
    expect(JSON.stringify(await tenantItems(server.memory, "tenantB"))).not.toContain("a@example.com");
  });
});

describe("validation: 4xx for every bad input, and nothing stored", () => {
  const long = "x".repeat(200);
  it.each([
    { name: "unknown field", body: { ...base, tenant_id: "tenantB" }, field: "tenant_id", code: "UNKNOWN_FIELD" },
    { name: "camelCase field", body: { userId: "u1", session_id: "s1", message: "x" }, field: "user_id" },
    { name: "missing user", body: { session_id: "s1", message: "x" }, field: "user_id" },
    { name: "empty id", body: { ...base, session_id: "" }, field: "session_id" },
    { name: "id too long", body: { ...base, user_id: long }, field: "user_id" },
    { name: "id with /", body: { ...base, user_id: "a/b" }, field: "user_id" },
    { name: "id with ..", body: { ...base, session_id: ".." }, field: "session_id" },
    { name: "id with a control character", body: { ...base, user_id: "a\u0001b" }, field: "user_id" },
    { name: "id with a lone surrogate", body: { ...base, user_id: "a\ud800b" }, field: "user_id" },
    { name: "session id with a lone low surrogate", body: { ...base, session_id: "\udc00" }, field: "session_id" },
    { name: "number for message", body: { ...base, message: 1e308 }, field: "message" },
    { name: "huge number id", body: { ...base, user_id: 1.5e300 }, field: "user_id" },
    { name: "array body", body: [base], field: "body" },
    { name: "null body", body: null, field: "body" },
    { name: "string body", body: "\"hello\"", field: "body" },
    { name: "prompt not an object", body: { ...base, prompts: ["x"] }, field: "prompts.0" },
    { name: "unknown prompt field", body: { ...base, prompts: [{ text: "x", extra: 1 }] }, field: "prompts.0.extra" },
    { name: "bad file ref", body: { ...base, files: [{ type: "image", transfer_method: "carrier_pigeon", belongs_to: "user" }] }, field: "files.0.transfer_method" },
    {
      name: "unknown file ref field",
      body: { ...base, prompts: [{ text: "x", files: [{ type: "image", transfer_method: "local_file", upload_file_id: "u", belongs_to: "user", size: 1 }] }] },
      field: "prompts.0.files.0.size",
      code: "UNKNOWN_FIELD",
    },
    { name: "camelCase file ref field", body: { ...base, files: [{ type: "image", transferMethod: "local_file", uploadFileId: "u", belongsTo: "user" }] }, field: "files.0.transfer_method" },
    { name: "deep metadata", body: { ...base, metadata: { a: JSON.parse("[".repeat(12) + "]".repeat(12)) } }, field: "metadata" },
    { name: "bad parent id", body: { ...base, parent_message_id: "../x" }, field: "parent_message_id" },
  ])("400 for $name", async ({ body, field, code }) => {
    server = await testServer();
    const res = await server.call("POST", "/v1/turns", { body });
    await expectError(res, 400, code ? { field, code } : { field });
    expect(await tenantItems(server.memory, "tenantA")).toHaveLength(0);
  });

  it.each([
    ["malformed JSON", "{\"user_id\": "],
    ["deeply nested junk", "[".repeat(100_000) + "]".repeat(100_000)],
    ["a bare number", "1e999999"],
    ["empty body", ""],
  ])("400 for %s", async (_name, body) => {
    server = await testServer({}, { bodyLimitBytes: 1_000_000 });
    const res = await server.call("POST", "/v1/turns", { body });
    expect(res.status).toBe(400);
    expect(await tenantItems(server.memory, "tenantA")).toHaveLength(0);
  });

  it("400 for a prompt over MAX_PROMPT_CHARS, naming the field", async () => {
    server = await testServer({ limits: { maxPromptChars: 10 } });
    await expectError(await server.call("POST", "/v1/turns", { body: { ...base, message: "x".repeat(11) } }), 400, { code: "PROMPT_TOO_LONG", field: "message" });
  });

  it("400 for an unknown parent message, and no thread is left behind", async () => {
    server = await testServer();
    await expectError(await server.call("POST", "/v1/turns", { body: { ...base, parent_message_id: "nope" } }), 400, { field: "parent_message_id" });
    expect(await tenantItems(server.memory, "tenantA")).toHaveLength(0);
    expect(await server.memory.sessionState({ tenantId: "tenantA", userId: "u1", sessionId: "s1" })).toBeNull();
  });

  it("400 for bad ids and query fields on the read and forget routes", async () => {
    server = await testServer();
    await expectError(await server.call("GET", "/v1/sessions/s1/messages"), 400, { field: "user_id" });
    await expectError(await server.call("GET", "/v1/sessions/s1/messages?user_id=a%2Fb"), 400, { field: "user_id" });
    await expectError(await server.call("GET", "/v1/sessions/s1/messages?user_id=u1&tenant=x"), 400, { field: "tenant" });
    await expectError(await server.call("GET", "/v1/users/a%2Fb/memory"), 400, { field: "user_id" });
    await expectError(await server.call("DELETE", "/v1/sessions/a%01b?user_id=u1"), 400, { field: "session_id" });
    await expectError(await server.call("DELETE", "/v1/sessions/s1"), 400, { field: "user_id" });
  });

  it("400 for ids in the path or query whose escapes are not UTF-8 (a lone surrogate cannot be sent otherwise)", async () => {
    server = await testServer();
    // %ED%A0%80 is U+D800 encoded as if it were a character: no URL can name a lone surrogate.
    await expectError(await server.call("GET", "/v1/users/a%ED%A0%80b/memory"), 400, { field: "user_id", code: "INVALID_ID" });
    await expectError(await server.call("DELETE", "/v1/users/a%ED%A0%80b"), 400, { field: "user_id", code: "INVALID_ID" });
    await expectError(await server.call("DELETE", "/v1/sessions/%ED%B0%80?user_id=u1"), 400, { field: "session_id", code: "INVALID_ID" });
    await expectError(await server.call("GET", "/v1/sessions/s1/messages?user_id=a%ED%A0%80b"), 400, { field: "user_id", code: "INVALID_ID" });
    // Well-formed escapes still name the ids they encode, "%" included.
    expect((await server.call("GET", "/v1/users/%E0%B8%AD%25x/memory")).status).toBe(200);
    expect(((await (await server.call("GET", "/v1/users/%E0%B8%AD%25x/memory")).json()) as { user_id: string }).user_id).toBe("\u0e2d%x");
  });

  it("413 over the body limit, declared or chunked", async () => {
    server = await testServer({}, { bodyLimitBytes: 1024 });
    await expectError(await server.call("POST", "/v1/turns", { body: { ...base, message: "x".repeat(2000) } }), 413, { code: "PAYLOAD_TOO_LARGE" });
    const chunks = [new TextEncoder().encode('{"user_id":"u1","session_id":"s1","message":"'), new TextEncoder().encode("y".repeat(4096)), new TextEncoder().encode('"}')];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    const res = await server.app.request("/v1/turns", {
      method: "POST",
      headers: { authorization: `Bearer ${KEY_A}`, "content-type": "application/json", "transfer-encoding": "chunked" },
      body: stream,
      duplex: "half",
    });
    await expectError(res, 413);
    expect(await tenantItems(server.memory, "tenantA")).toHaveLength(0);
  });

  it("400 BODY_INCOMPLETE for a chunked body that breaks off while its size is counted", async () => {
    server = await testServer();
    let sent = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.error(new Error("socket hang up"));
        sent = true;
        controller.enqueue(new TextEncoder().encode('{"user_id":"u1","session_id":"s1","message":"'));
      },
    });
    const res = await server.app.request("/v1/turns", {
      method: "POST",
      headers: { authorization: `Bearer ${KEY_A}`, "content-type": "application/json", "transfer-encoding": "chunked" },
      body: stream,
      duplex: "half",
    });
    await expectError(res, 400, { code: "BODY_INCOMPLETE" });
    expect(await tenantItems(server.memory, "tenantA")).toHaveLength(0);
  });

  it("415 for a body that is not application/json", async () => {
    server = await testServer();
    await expectError(await server.call("POST", "/v1/turns", { body: JSON.stringify(base), headers: { "content-type": "text/plain" } }), 415);
    await expectError(await server.call("POST", "/v1/turns/stream", { headers: {} }), 415);
    expect((await server.call("POST", "/v1/turns", { body: base, headers: { "content-type": "application/json; charset=utf-8" } })).status).toBe(200);
  });

  it("404 for unknown routes, JSON all the same", async () => {
    server = await testServer();
    await expectError(await server.call("GET", "/v1/nothing"), 404, { code: "NOT_FOUND" });
    await expectError(await server.call("GET", "/", { key: null }), 404);
    await expectError(await server.call("DELETE", "/v1/users/u1/nothing"), 404, { code: "NOT_FOUND" });
  });

  it.each([
    { method: "PUT", path: "/v1/turns", allow: "POST" },
    { method: "GET", path: "/v1/turns", allow: "POST" },
    { method: "GET", path: "/v1/turns/stream", allow: "POST" },
    { method: "POST", path: "/healthz", allow: "GET, HEAD" },
    { method: "DELETE", path: "/readyz", allow: "GET, HEAD" },
    { method: "POST", path: "/v1/users/u1", allow: "GET, HEAD, DELETE" },
    { method: "PATCH", path: "/v1/users/u1/memory", allow: "GET, HEAD" },
    { method: "POST", path: "/v1/sessions/s1?user_id=u1", allow: "DELETE" },
    { method: "PUT", path: "/v1/sessions/s1/messages?user_id=u1", allow: "GET, HEAD" },
  ])("405 with Allow: $allow for $method $path", async ({ method, path, allow }) => {
    server = await testServer();
    const res = await server.call(method, path, method === "GET" ? {} : { body: base });
    expect(res.headers.get("allow")).toBe(allow);
    await expectError(res, 405, { code: "METHOD_NOT_ALLOWED" });
    expect(await tenantItems(server.memory, "tenantA")).toHaveLength(0);
  });

  it("asks for the key before telling which methods a /v1 route takes", async () => {
    server = await testServer();
    await expectError(await server.call("PUT", "/v1/turns", { key: null, body: base }), 401, { code: "UNAUTHORIZED" });
  });
});

describe("rate limit", () => {
  it("is off by default", async () => {
    server = await testServer();
    for (let i = 0; i < 5; i += 1) expect((await server.call("GET", "/v1/users/u1/memory")).status).toBe(200);
  });

  it("answers 429 with Retry-After and the RateLimit headers past the per-key limit, counting each key alone", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.parse("2026-11-01T10:00:30.000Z"));
      server = await testServer({}, { rateLimitPerMinute: 2 });
      const first = await server.call("GET", "/v1/users/u1/memory");
      expect(first.status).toBe(200);
      expect(Object.fromEntries(["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset", "ratelimit-policy"].map((h) => [h, first.headers.get(h)]))).toEqual({
        "ratelimit-limit": "2",
        "ratelimit-remaining": "1",
        "ratelimit-reset": "60",
        "ratelimit-policy": "2;w=60",
      });
      vi.setSystemTime(Date.parse("2026-11-01T10:00:40.000Z"));
      expect((await server.call("GET", "/v1/users/u1/memory")).headers.get("ratelimit-remaining")).toBe("0");
      const limited = await server.call("GET", "/v1/users/u1/memory");
      await expectError(limited, 429, { code: "RATE_LIMITED" });
      expect(limited.headers.get("retry-after")).toBe("50");
      expect(limited.headers.get("ratelimit-remaining")).toBe("0");
      expect(limited.headers.get("ratelimit-reset")).toBe("50");
      expect((await server.call("GET", "/v1/users/u1/memory", { key: KEY_B })).status).toBe(200);
      vi.setSystemTime(Date.parse("2026-11-01T10:01:31.000Z"));
      expect((await server.call("GET", "/v1/users/u1/memory")).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  it("sends no RateLimit headers when the limit is off", async () => {
    server = await testServer();
    expect((await server.call("GET", "/v1/users/u1/memory")).headers.get("ratelimit-limit")).toBeNull();
  });
});

describe("request ids", () => {
  it("echoes a sane X-Request-Id and makes one otherwise", async () => {
    server = await testServer();
    const echoed = await server.call("GET", "/healthz", { headers: { "x-request-id": "abc-123" } });
    expect(echoed.headers.get("x-request-id")).toBe("abc-123");
    const made = await server.call("GET", "/healthz", { headers: { "x-request-id": "bad id\u00e9" } });
    expect(made.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    // Word characters, '-', '.', ':' and '=', up to 128 of them, are kept as sent; anything longer is replaced.
    for (const sent of ["trace.7:a-b_c", "YWJj=", "x".repeat(128)]) expect((await server.call("GET", "/healthz", { headers: { "x-request-id": sent } })).headers.get("x-request-id")).toBe(sent);
    expect((await server.call("GET", "/healthz", { headers: { "x-request-id": "x".repeat(129) } })).headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
