import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeLabel, encodeLabel, namespaces } from "../../src/memory/namespaces.js";
import { sessionIdOfTranscript } from "../support/namespaces.js";
import { memoryGraphForTest } from "../support/deps.js";

describe("namespaces", () => {
  it("always begin with the tenant", () => {
    const s = { tenantId: "acme", userId: "u", sessionId: "s" };
    for (const build of [namespaces.user, namespaces.sessions, namespaces.events, namespaces.facts, namespaces.summaries]) expect(build(s)[0]).toBe("acme");
    expect(namespaces.transcript(s)[0]).toBe("acme");
  });

  it("encode ids one-to-one into labels LangGraph stores accept", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (id) => {
        const label = encodeLabel(id);
        expect(label).not.toMatch(/[.:]/);
        expect(label).not.toBe("langgraph");
        expect(decodeLabel(label)).toBe(id);
      }),
      { numRuns: 300 },
    );
    expect(sessionIdOfTranscript(namespaces.transcript({ tenantId: "t", userId: "u", sessionId: "a.b:c" }))).toBe("a.b:c");
  });

  it("let a user id that is an e-mail address keep memory", async () => {
    const { graph } = await memoryGraphForTest();
    const scope = { tenantId: "acme.co", userId: "anong@example.com", sessionId: "web:1" };
    const result = await graph.runTurn({ ...scope, message: "My phone number is 0812345678" });
    expect(result.status).toBe("OK");
    const next = await graph.runTurn({ ...scope, message: "what is my phone number" });
    expect(next.memoryContext.recalled?.facts.map((f) => f.value)).toContain("0812345678");
    await graph.close();
  });
});
