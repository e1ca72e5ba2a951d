import { describe, expect, it } from "vitest";
import { namespaces } from "../../src/memory/namespaces.js";
import type { SummaryRecord, TranscriptRecord } from "../../src/memory/records.js";
import { manualClock, memoryGraphForTest, scope } from "../support/deps.js";

const values = async <T>(store: { search: (ns: string[], o: { limit: number }) => Promise<{ value: unknown }[]> }, ns: string[]) =>
  (await store.search(ns, { limit: 1000 })).map((item) => item.value as T);

// Twenty offline turns in which a user tells the service about themself.
const TOLD = [
  "Hi, I am Tom",
  "My phone number is 555-0100",
  "I live in Bangkok",
  "I run a bakery near the river",
  "I prefer vegetarian food and I hate mornings",
  "contact me by LINE, not email",
  "My LINE id is tom_bkk88",
  "my email is tom@example.com",
  "My birthday is on March 14",
  "My wife's name is Nok",
  "I have two kids",
  "I speak English and a little Thai",
  "I'm in the GMT+7 time zone",
  "Budget for the new shop is 40000 pounds",
  "I work as a pastry chef",
  "I'm originally from Germany",
  "My phone number changed, it's now 555-0199",
  "Can you remind me to order flour on Friday?",
  "ผมชอบกาแฟ",
  "mujhe cricket pasand hai",
];

// Then, in a new session, a question about each fact and what the answer must say.
const ASKED: [string, string][] = [
  ["What is my name?", "Your name is Tom"],
  ["What is my phone number?", "Your phone number is 555-0199"],
  ["Where do I live?", "Your city is Bangkok"],
  ["What is my business?", "Your business is bakery"],
  ["What do I like?", "vegetarian food"],
  ["What do I dislike?", "You dislike mornings"],
  ["How should you contact me?", "LINE"],
  ["What is my LINE id?", "tom_bkk88"],
  ["What is my email?", "tom@example.com"],
  ["When is my birthday?", "14 March"],
  ["What is my wife's name?", "Your wife is Nok"],
  ["How many kids do I have?", "You have 2 children"],
  ["What languages do I speak?", "You speak English, Thai"],
  ["What is my time zone?", "GMT+7"],
  ["What is my job?", "pastry chef"],
  ["Which country am I from?", "Germany"],
];

describe("memory without a model (offline responder, keyword classifier, rule summaries)", () => {
  it("remembers what a user told it over 20 turns and answers each fact in a new session", async () => {
    const clock = manualClock("2026-11-23T09:00:00.000Z");
    const { graph, store } = await memoryGraphForTest({ now: clock.now, limits: { summaryInterval: 20 } });
    for (const message of TOLD) {
      const result = await graph.runTurn({ ...scope, message });
      expect(result.status).toBe("OK");
      clock.advance(60_000);
    }

    // The summary after 20 pairs (made after the 20th reply) holds the stated facts and none of the offline boilerplate.
    await graph.settled();
    const [summary, ...more] = await values<SummaryRecord>(store, namespaces.summaries(scope));
    expect(more).toHaveLength(0);
    expect(summary?.method).toBe("rules");
    for (const fact of ["Tom", "555-0199", "Bangkok", "bakery", "vegetarian food", "mornings", "LINE", "tom_bkk88", "tom@example.com", "Nok", "GMT+7", "pastry chef", "Germany", "กาแฟ", "cricket", "40000"]) {
      expect(summary?.text).toContain(fact);
    }
    expect(summary?.text).not.toMatch(/no language model|offline responder|OPENAI_API_KEY|You said|Assistant: -/i);

    // The offline replies stay in the transcript and the window, marked as not memory.
    const transcript = await values<TranscriptRecord>(store, namespaces.transcript(scope));
    expect(transcript).toHaveLength(40);
    expect(transcript.filter((m) => m.role === "assistant").every((m) => m.recall === false)).toBe(true);
    expect((await graph.sessionState(scope))?.messages.filter((m) => m.getType() === "ai")).not.toHaveLength(0);

    const later = { ...scope, sessionId: "s2" };
    for (const [question, answer] of ASKED) {
      const result = await graph.runTurn({ ...later, message: question });
      expect(result.llmText, question).toContain(answer);
      expect(result.llmText, question).toMatch(/you told me on 23 Nov\.$/);
      // Nothing the offline responder said comes back as memory.
      const recalled = result.memoryContext.recalled;
      expect([...(recalled?.similar ?? []), ...(recalled?.recentTurns ?? [])].every((m) => m.role === "user"), question).toBe(true);
    }
    await graph.close();
  });

  it("shows only the few most relevant memories when it cannot answer", async () => {
    const { graph } = await memoryGraphForTest();
    for (const message of TOLD.slice(0, 6)) await graph.runTurn({ ...scope, message });
    const result = await graph.runTurn({ ...scope, message: "Should the bakery open earlier on weekends?" });
    expect(result.llmText).toMatch(/no language model is configured/i);
    expect(result.llmText).toContain("bakery");
    expect(result.llmText.split("\n").filter((line) => line.startsWith("  - ")).length).toBeLessThanOrEqual(3);
    expect(result.llmText).not.toMatch(/Facts I remember about you|Earlier conversation summaries|Important events|Similar past messages|You said/);
    await graph.close();
  });
});
