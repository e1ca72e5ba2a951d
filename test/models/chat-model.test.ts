import { ChatOpenAI } from "@langchain/openai";
import { createChatModel, isTransientError, withRetry } from "../../src/models/chat-model.js";

function httpError(status: number): Error {
  return Object.assign(new Error(`HTTP ${status}`), { status });
}

describe("createChatModel", () => {
  const base = { model: "gpt-4o-mini", timeoutMs: 5_000 };

  it("returns null with neither key nor base URL", () => {
    expect(createChatModel(base)).toBeNull();
    expect(createChatModel({ ...base, apiKey: "  ", baseUrl: "" })).toBeNull();
  });

  it("builds a ChatOpenAI client from a key", () => {
    const model = createChatModel({ ...base, apiKey: "sk-test", maxRetries: 1, temperature: 0 });
    expect(model).toBeInstanceOf(ChatOpenAI);
    expect((model as ChatOpenAI).model).toBe("gpt-4o-mini");
    expect((model as ChatOpenAI).temperature).toBe(0);
  });

  it("uses a placeholder key for a base URL alone", () => {
    const model = createChatModel({ ...base, baseUrl: "http://127.0.0.1:11434/v1" }) as ChatOpenAI;
    expect(model).toBeInstanceOf(ChatOpenAI);
    expect(model.apiKey).toBe("not-needed");
  });
});

describe("isTransientError", () => {
  it.each([
    { error: httpError(429), transient: true },
    { error: httpError(500), transient: true },
    { error: httpError(503), transient: true },
    { error: httpError(408), transient: true },
    { error: httpError(400), transient: false },
    { error: httpError(401), transient: false },
    { error: httpError(404), transient: false },
    { error: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }), transient: true },
    { error: Object.assign(new Error("timeout"), { name: "TimeoutError" }), transient: true },
    { error: new Error("Request timed out."), transient: true },
    { error: new Error("wrapped", { cause: httpError(502) }), transient: true },
    { error: Object.assign(new Error("aborted"), { name: "AbortError" }), transient: false },
    { error: new Error("Invalid schema"), transient: false },
    { error: undefined, transient: false },
  ])("$error → $transient", ({ error, transient }) => {
    expect(isTransientError(error)).toBe(transient);
  });
});

describe("withRetry", () => {
  it("retries transient errors until success, counting attempts", async () => {
    let attempts = 0;
    const retried: number[] = [];
    const result = await withRetry(
      async () => {
        attempts += 1;
        if (attempts < 3) throw httpError(503);
        return "ok";
      },
      { retries: 5, baseDelayMs: 1, onRetry: (attempt) => retried.push(attempt) },
    );
    expect(result).toBe("ok");
    expect(attempts).toBe(3);
    expect(retried).toEqual([1, 2]);
  });

  it("gives up after `retries` extra attempts and rethrows the last error", async () => {
    let attempts = 0;
    const failing = withRetry(
      async () => {
        attempts += 1;
        throw httpError(429);
      },
      { retries: 2, baseDelayMs: 1 },
    );
    await expect(failing).rejects.toMatchObject({ status: 429 });
    expect(attempts).toBe(3);
  });

  it("fails at once on a non-transient error", async () => {
    let attempts = 0;
    const failing = withRetry(
      async () => {
        attempts += 1;
        throw httpError(400);
      },
      { retries: 5, baseDelayMs: 1 },
    );
    await expect(failing).rejects.toMatchObject({ status: 400 });
    expect(attempts).toBe(1);
  });

  it("uses a custom isRetryable", async () => {
    let attempts = 0;
    await expect(
      withRetry(
        async () => {
          attempts += 1;
          throw new Error("flaky");
        },
        { retries: 2, baseDelayMs: 1, isRetryable: (e) => (e as Error).message === "flaky" },
      ),
    ).rejects.toThrow("flaky");
    expect(attempts).toBe(3);
  });

  it("caps the delay at maxDelayMs", async () => {
    const started = Date.now();
    let attempts = 0;
    await withRetry(
      async () => {
        attempts += 1;
        if (attempts < 3) throw Object.assign(httpError(429), { headers: { "retry-after": "60" } });
        return 1;
      },
      { retries: 3, baseDelayMs: 1, maxDelayMs: 5 },
    );
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
