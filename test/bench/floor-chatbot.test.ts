import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPacedProvider, type PacedProvider } from "../../bench/lib/paced-provider.js";
import { startBare, startFloor, streamTurn, tempDir, type Service } from "../../bench/lib/services.js";

/**
 * The benchmarks' peers (bench/lib/bare-chatbot-server.ts) as child processes against the paced
 * stand-in: the bare chatbot makes one model call a turn, the six-node floor two (the reply and
 * the classification's tool call), and both stream the whole reply. A floor that dropped its
 * classification, or failed mid-turn, would make the cost benchmarks compare with the wrong thing.
 * Tests run in order: the last reads the tokens the stand-in tallied over the first two.
 */
describe("the benchmarks' bare chatbot and six-node floor", () => {
  let provider: PacedProvider;
  let temp: ReturnType<typeof tempDir>;
  let bare: Service;
  let floor: Service;

  beforeAll(async () => {
    provider = await startPacedProvider({ ttftMs: 0, tokens: 20, tokenGapMs: 0, embeddingsMs: 0, dimensions: 8 });
    temp = tempDir("mg-test-floor-");
    [bare, floor] = await Promise.all([startBare(temp.dir, provider.baseUrl), startFloor(temp.dir, provider.baseUrl)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([bare?.stop(), floor?.stop()]);
    await provider?.close();
    temp?.remove();
  });

  const callsDuring = async (work: () => Promise<unknown>) => {
    const before = provider.calls.length;
    await work();
    return provider.calls.slice(before).map((call) => call.kind).sort();
  };

  it("the bare chatbot streams each reply from one model call", async () => {
    for (const message of ["Bharat ka balance kitna hai?", "Usko 500 add karo"]) {
      const calls = await callsDuring(async () => expect((await streamTurn(bare.url, "s1", message)).tokens).toBe(20));
      expect(calls).toEqual(["reply"]);
    }
  });

  it("the floor streams each reply and classifies each message with a tool call, turn after turn", async () => {
    for (const message of ["Bharat ka balance kitna hai?", "Usko 500 add karo", "My sister Priya moved to Pune"]) {
      const calls = await callsDuring(async () => expect((await streamTurn(floor.url, "s1", message)).tokens).toBe(20));
      expect(calls).toEqual(["reply", "tool_call"]);
    }
  });

  it("each calls the stand-in with its own API key, so the stand-in tallies their tokens apart", () => {
    const bareTokens = provider.tokens.get("bare");
    const floorTokens = provider.tokens.get("six_node_floor");
    expect(bareTokens?.reply).toMatchObject({ calls: 2, output: 40 });
    expect(bareTokens?.tool_call.calls).toBe(0);
    expect(floorTokens?.reply).toMatchObject({ calls: 3, output: 60 });
    expect(floorTokens?.tool_call.calls).toBe(3);
    // Prompt tokens from the request (the classification sends its tool's schema), not a constant.
    expect(floorTokens!.tool_call.input / 3).toBeGreaterThan(floorTokens!.reply.input / 3);
    expect([...provider.tokens.keys()].sort()).toEqual(["bare", "six_node_floor"]);
  });
});
