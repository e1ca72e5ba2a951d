import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryGraph, type MemoryGraph, type MemoryGraphOptions } from "../../src/app/create-memory-graph.js";
import { setLogLevel } from "../../src/logger.js";
import { metaOf, textOf } from "../../src/messages/message-meta.js";
import { RecordingChatModel } from "../support/models.js";
import { createTempDatabase } from "../support/postgres.js";

setLogLevel("silent");

const user = { tenantId: `acme-${randomUUID().slice(0, 8)}`, userId: "u.seed" };
const earlier = { ...user, sessionId: "earlier" };
const later = { ...user, sessionId: "later" };

const backends: [string, () => Promise<{ options: MemoryGraphOptions; cleanup: () => Promise<void> | void }>][] = [
  [
    "SQLite",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-seed-"));
      return { options: { backend: "sqlite", sqlitePath: path.join(dir, "m.db") }, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  ],
  [
    "Postgres",
    async () => {
      const db = await createTempDatabase();
      return { options: { backend: "postgres", databaseUrl: db.url }, cleanup: db.drop };
    },
  ],
];

/** The prompt the model was given for `message` (the latest one ending in it). */
function promptFor(model: RecordingChatModel, message: string): { system: string; all: string } {
  const prompt = model.prompts.findLast((messages) => textOf(messages.at(-1)!) === message);
  if (!prompt) throw new Error(`no prompt for ${message}`);
  return { system: textOf(prompt[0]!), all: prompt.map((m: BaseMessage) => textOf(m)).join("\n") };
}

describe.each(backends)("a session's carried-over seed follows memory edits, on %s", (_name, make) => {
  let graph: MemoryGraph;
  let cleanup: () => Promise<void> | void;

  afterEach(async () => {
    await graph.close();
    await cleanup();
  });

  it("shows the edited fact and summary, and neither a deleted fact nor an old value, from the very next turn", async () => {
    const backend = await make();
    cleanup = backend.cleanup;
    const model = new RecordingChatModel(Array.from({ length: 20 }, () => "Noted."));
    graph = await createMemoryGraph({ ...backend.options, chatModel: model, classifierModel: null, summaryModel: null, limits: { summaryInterval: 2 } });
    await graph.runTurn({ ...earlier, message: "My name is Somchai" });
    await graph.runTurn({ ...earlier, message: "I live in Bangkok" });
    await graph.settled();
    const [summary] = await graph.listSummaries(user);
    expect(summary).toBeDefined();

    // A new session starts from a seed carrying the summary and both facts.
    await graph.runTurn({ ...later, message: "Hello again" });
    const first = promptFor(model, "Hello again").system;
    expect(first).toContain("Carried over from earlier sessions");
    expect(first).toMatch(/Somchai[\s\S]*Bangkok|Bangkok[\s\S]*Somchai/);
    // The checkpointed seed holds references, not values.
    const window = (await graph.sessionState(later))?.messages ?? [];
    const seed = window.find((m) => metaOf(m).carried !== undefined);
    expect(metaOf(seed!).carried).toMatchObject({ summaryId: summary!.id });
    expect(metaOf(seed!).carried?.factKeys).toHaveLength(2);
    expect(window.map((m) => textOf(m)).join("\n")).not.toMatch(/Somchai|Bangkok/);

    const facts = await graph.listFacts(user, { current: true });
    const name = facts.find((f) => f.value === "Somchai")!;
    const city = facts.find((f) => f.value === "Bangkok")!;
    const moved = await graph.updateFact(user, city.id, { value: "Chiang Mai" });
    await graph.deleteFact(user, name.id); // marks the summary of its message stale
    const rewritten = await graph.updateSummary(user, summary!.id, { text: "We talked about where the user lives." });

    // The next turn of the session that started before the edits: only current memory, in the seed and everywhere.
    const asked = "What do you remember about me?";
    await graph.runTurn({ ...later, message: asked, messageId: "q-after", memorySections: ["summaries", "facts"] });
    const after = promptFor(model, asked);
    expect(after.system).toContain("Chiang Mai");
    expect(after.system).toContain("We talked about where the user lives.");
    expect(after.all).not.toMatch(/Somchai|Bangkok/);
    const seen = await graph.turnContext(later, "q-after");
    expect(seen.shown.facts).toContain(moved.id);
    expect(seen.shown.facts).not.toContain(city.id);
    expect(seen.shown.summaries).toEqual([rewritten.id]);

    // Sections left out are left out of the seed too; no memory means no seed at all.
    await graph.runTurn({ ...later, message: "Only the chat, please", memorySections: ["history"] });
    expect(promptFor(model, "Only the chat, please").system).not.toContain("Carried over");
    await graph.runTurn({ ...later, message: "Facts only", memorySections: ["facts"] });
    const factsOnly = promptFor(model, "Facts only").system;
    expect(factsOnly).toContain("Chiang Mai");
    expect(factsOnly).not.toContain("We talked about");
    await graph.runTurn({ ...later, message: "No memory now", useMemory: false });
    expect(promptFor(model, "No memory now").system).not.toContain("Carried over");

    // A deleted summary leaves the seed with the next turn.
    await graph.deleteSummary(user, summary!.id);
    await graph.runTurn({ ...later, message: "And now?" });
    const last = promptFor(model, "And now?").system;
    expect(last).not.toContain("We talked about");
    expect(last).toContain("Chiang Mai");
  });
});
