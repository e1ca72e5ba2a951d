import { afterEach, describe, expect, it } from "vitest";
import { startProvider, type Provider } from "../support/openai-provider.js";
import { parseSse, testServer, type TestServer } from "./helpers.js";

/** The service with OPENAI_BASE_URL pointing at a local OpenAI-compatible provider. */
let provider: Provider | undefined;
let server: TestServer | undefined;

async function open(mode: Provider["mode"]) {
  provider = await startProvider(mode);
  server = await testServer({
    chatModel: undefined,
    classifierModel: undefined,
    summaryModel: undefined,
    openai: { baseUrl: provider.baseUrl, model: "gpt-4o-mini", timeoutMs: 500 },
    retry: { retries: 1, baseDelayMs: 1 },
  });
  return server;
}

afterEach(async () => {
  await server?.close();
  await provider?.close();
});

describe("the service through the real ChatOpenAI client", () => {
  it("answers a turn with the provider's reply", async () => {
    const s = await open("ok");
    const response = await s.call("POST", "/v1/turns", { body: { user_id: "u1", session_id: "s1", message: "Hello there" } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { status: string; candidate: { text: string; model: string } };
    expect(body.status).toBe("OK");
    expect(body.candidate).toMatchObject({ text: "stub reply to: Hello there", model: "gpt-4o-mini" });
  });

  it("streams the provider's tokens, then the result", async () => {
    const s = await open("ok");
    const response = await s.call("POST", "/v1/turns/stream", { body: { user_id: "u1", session_id: "s1", message: "Stream this please" } });
    const events = parseSse(await response.text());
    const tokens = events.filter((e) => e.event === "token").map((e) => (e.data as { text: string }).text);
    expect(tokens.length).toBeGreaterThan(1);
    expect(tokens.join("")).toBe("stub reply to: Stream this please");
    expect(events.at(-1)).toMatchObject({ event: "result", data: { status: "OK" } });
  });

  it.each(["error500", "timeout", "malformed"] as const)("on %s: a 502 with the usual body (status ERROR, the message kept)", async (mode) => {
    const s = await open(mode);
    const response = await s.call("POST", "/v1/turns", { body: { user_id: "u1", session_id: "s1", message: "Please cancel my order" } });
    expect(response.status).toBe(502);
    const body = (await response.json()) as { status: string; candidate: unknown; errors: { code: string }[]; message_ids: { user: string | null } };
    expect(body.status).toBe("ERROR");
    expect(body.message_ids.user).toEqual(expect.any(String));
    expect(body.candidate).toBeNull();
    expect(body.errors.map((e) => e.code)).toContain("MODEL_ERROR");
    const thread = await s.call("GET", "/v1/sessions/s1/messages?user_id=u1");
    expect(JSON.stringify(await thread.json())).toContain("Please cancel my order");
  }, 20_000);
});
