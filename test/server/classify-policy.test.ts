import { afterEach, describe, expect, it } from "vitest";
import { loadEnv } from "../../src/config.js";
import type { ClassifyPolicy } from "../../src/rules/classify-gate.js";
import { startProvider, type Provider } from "../support/openai-provider.js";
import { testServer, type TestServer } from "./helpers.js";

/**
 * The classification policy through the service and the real OpenAI client against a local
 * stand-in: which messages cost a classification call, and what the turn result says of it.
 */
let provider: Provider | undefined;
let server: TestServer | undefined;

async function open(classify?: ClassifyPolicy) {
  provider = await startProvider("ok");
  server = await testServer({
    chatModel: undefined,
    classifierModel: undefined,
    summaryModel: undefined,
    openai: { baseUrl: provider.baseUrl, model: "gpt-4o-mini", timeoutMs: 2000 },
    retry: { retries: 0, baseDelayMs: 1 },
    ...(classify ? { classify } : {}),
  });
  return server;
}

afterEach(async () => {
  await server?.close();
  await provider?.close();
});

/** Requests to the provider that were classifications (a call of the classification tool). */
const classifications = () => provider!.requests.filter((r) => JSON.stringify(r.body.tools ?? []).includes("classified_event")).length;

interface Answer {
  status: string;
  intent: string | null;
  classification: { policy: string | null; by: string; reason: string | null; fallback_reason: string | null } | null;
  usage: { calls: { node: string }[] };
}

async function turn(s: TestServer, message: string, id: string): Promise<Answer> {
  const response = await s.call("POST", "/v1/turns", { body: { user_id: "u1", session_id: "s1", message, message_id: id } });
  expect(response.status).toBe(200);
  await s.memory.settled();
  // The replay is the stored result, with the classification the reply did not wait for.
  const replay = await s.call("POST", "/v1/turns", { body: { user_id: "u1", session_id: "s1", message, message_id: id } });
  return (await replay.json()) as Answer;
}

describe("CLASSIFY_POLICY through the service", () => {
  it("auto (the default): acknowledgements, greetings and questions cost no classification call; a statement about the user does", async () => {
    const s = await open();
    for (const [i, message] of ["thanks!", "Hi there!", "What time do you open?"].entries()) {
      const answer = await turn(s, message, `m-${i}`);
      expect(answer.classification).toMatchObject({ policy: "auto", by: "keywords", fallback_reason: null });
      expect(answer.usage.calls.map((c) => c.node)).not.toContain("classify_event");
    }
    expect(classifications()).toBe(0);
    const stated = await turn(s, "My sister Priya moved to Pune last month.", "m-3");
    expect(stated.classification).toEqual({ policy: "auto", by: "model", reason: "possession", fallback_reason: null });
    expect(stated.usage.calls.map((c) => c.node)).toContain("classify_event");
    expect(classifications()).toBe(1);
  });

  it("model asks about every message, thanks included; rules never asks", async () => {
    const s = await open("model");
    const answer = await turn(s, "thanks!", "m-1");
    expect(answer.classification).toEqual({ policy: "model", by: "model", reason: "policy_model", fallback_reason: null });
    expect(classifications()).toBe(1);
    await server!.close();
    await provider!.close();

    const r = await open("rules");
    const local = await turn(r, "My sister Priya moved to Pune last month.", "m-2");
    expect(local.classification).toEqual({ policy: "rules", by: "keywords", reason: "policy_rules", fallback_reason: null });
    expect(local.intent).toBe("profile_update");
    expect(classifications()).toBe(0);
    // The reply still comes from the model: only classification is local.
    expect(provider!.requests.some((r) => r.path.endsWith("/chat/completions"))).toBe(true);
  });

  it("a bad CLASSIFY_POLICY is a configuration error naming it", () => {
    expect(() => loadEnv({ CLASSIFY_POLICY: "sometimes" })).toThrow(/CLASSIFY_POLICY/);
    expect(loadEnv({}).CLASSIFY_POLICY).toBe("auto");
  });
});
