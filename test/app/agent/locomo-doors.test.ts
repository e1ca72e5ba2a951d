import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { HumanMessage } from "@langchain/core/messages";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { loadLocomo, locomoSessions } from "../../../bench/lib/locomo-data.js";
import { memoryMiddleware } from "../../../src/entries/agent.js";
import { memoryBlock } from "../../../src/memory/context.js";
import { answeringModel, systemTextOf } from "../../support/agent.js";

/** The LoCoMo development set, beside the repository (outside it: CI on this machine has it there). */
const DATA = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../shared/bench/locomo/locomo-dev.json");
const present = existsSync(DATA);
const MISSING = `skipped: ${DATA} is missing (LoCoMo's development set; see ../shared/bench/locomo/README.md)`;
if (!present) console.warn(`locomo-doors.test.ts ${MISSING}`);

const dir = mkdtempSync(path.join(os.tmpdir(), "mg-locomo-doors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TITLE = "gives the agent's model the memory block the graph's runTurn renders, question by question (one conversation, its questions with evidence)";

describe("recall through either door on LoCoMo's development set", () => {
  // The data set lives beside the repository, not in it: without it the test says so, and is skipped.
  it.skipIf(!present)(present ? TITLE : `${TITLE} — ${MISSING}`, { timeout: 60_000 }, async () => {
    const [conversation] = loadLocomo(DATA);
    if (!conversation) throw new Error(`${DATA} holds no conversation`);
    const memory = await memoryMiddleware({ sqlitePath: path.join(dir, "memory.db"), logger: false });
    // Every question of the conversation that has evidence (197: some 10 s here).
    const asked = conversation.questions.filter((qa) => qa.evidence.length > 0);
    expect(asked.length).toBeGreaterThanOrEqual(20);
    const model = answeringModel(undefined, asked.length);
    const agent = createAgent({ model, middleware: [memory] });
    const user = { tenantId: "locomo", userId: conversation.sampleId };
    // The whole conversation, imported through the public API as bench:locomo imports it (classified, so facts and events are recalled too).
    await memory.graph.importSessions(user, locomoSessions(conversation), { classify: true });

    const blocks: { question: string; agent: string; graph: string }[] = [];
    for (const [i, { question }] of asked.entries()) {
      // Neither door keeps the question (remember: false), and each asks in a session of its own.
      await agent.invoke({ messages: [new HumanMessage(question)] }, { context: { ...user, sessionId: `agent-${i}`, remember: false } });
      const turn = await memory.graph.runTurn({ ...user, sessionId: `graph-${i}`, message: question, remember: false });
      expect(turn.status).toBe("OK");
      expect(turn.memoryContext.text).not.toBe("");
      blocks.push({ question, agent: systemTextOf(model.calls.at(-1)?.messages ?? []), graph: memoryBlock(turn.memoryContext) });
    }
    expect(model.callCount).toBe(asked.length);
    // Compared question by question: a difference names its question.
    for (const { question, agent: seen, graph } of blocks) expect({ question, block: seen }).toEqual({ question, block: graph });
    const sections = new Set(blocks.flatMap(({ graph }) => graph.match(/^## .*$/gm) ?? []));
    // The comparison covered facts, events, similar past messages and recent turns, not just one section.
    expect([...sections].sort()).toEqual(["## Important recent events", "## Most recent earlier turns", "## Related things said before", "## What we know about the user"]);
    await memory.close();
  });
});
