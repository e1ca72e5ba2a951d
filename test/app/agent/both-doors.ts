import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { createAgent } from "langchain";
import { expect, it } from "vitest";
import { createMemoryGraph, type MemoryGraphOptions } from "../../../src/app/create-memory-graph.js";
import { textOf } from "../../../src/messages/message-meta.js";
import { memoryMiddleware } from "../../../src/entries/agent.js";
import { RecordingChatModel } from "../../support/models.js";
import { answeringModel, systemTextOf } from "../../support/agent.js";

const ada = { tenantId: "acme", userId: "ada" };
const texts = (messages: readonly BaseMessage[]) => messages.map((m) => `${m.getType()}: ${textOf(m)}`);

/**
 * The same memory through either door, on one backend: what an agent with the middleware stores, a
 * memory graph opened on the same storage reads (the session's thread, its window, the facts), and
 * what the graph stores, the agent recalls; the two doors keep one thread per session.
 */
export function itSharesMemoryWithTheGraph(backend: () => Pick<MemoryGraphOptions, "backend" | "sqlitePath" | "databaseUrl">) {
  it("stores a conversation through the middleware that the graph reads, and recalls what the graph stored", async () => {
    const memory = await memoryMiddleware({ ...backend(), logger: false });
    const model = answeringModel();
    const agent = createAgent({ model, middleware: [memory] });
    const s1 = { ...ada, sessionId: "s1" };
    let state = await agent.invoke({ messages: [new HumanMessage("My name is Ada and I live in Lisbon")] }, { context: s1 });
    state = await agent.invoke({ messages: [...state.messages, new HumanMessage("I have a cat called Miso")] }, { context: s1 });
    await memory.settled();

    const chatModel = new RecordingChatModel(["Your cat is called Miso.", "Noted: Porto.", "You're welcome."]);
    const graph = await createMemoryGraph({ ...backend(), chatModel, classifierModel: null, summaryModel: null, logger: false });
    // The session's thread, as the graph reads it: every message the agent's turns stored, in order.
    const thread = await graph.sessionMessages(s1);
    expect(thread?.map((m) => `${m.role}: ${m.text}`)).toEqual([
      "user: My name is Ada and I live in Lisbon",
      "assistant: ok: My name is Ada and I live in Lisbon",
      "user: I have a cat called Miso",
      "assistant: ok: I have a cat called Miso",
    ]);
    expect(thread?.map((m) => m.id)).toEqual(state.messages.map((m) => m.id));
    // A graph turn in that session has the agent's turns in its window, and the facts they taught.
    const turn = await graph.runTurn({ ...s1, message: "What is my cat called?" });
    expect(turn.status).toBe("OK");
    const prompt = texts(chatModel.prompts.at(-1) ?? []).join("\n");
    expect(prompt).toContain("human: I have a cat called Miso");
    expect(prompt).toMatch(/name: Ada/);
    expect(prompt).toMatch(/location city: Lisbon/);

    // And back: what the graph stores, the agent's next turns recall.
    await graph.runTurn({ ...ada, sessionId: "s2", message: "I moved to Porto" });
    await graph.settled();
    await agent.invoke({ messages: [new HumanMessage("Where do I live now?")] }, { context: { ...ada, sessionId: "s2" } });
    const system = systemTextOf(model.calls.at(-1)?.messages ?? []);
    expect(system).toMatch(/location city: Porto/);
    expect(system).not.toMatch(/location city: Lisbon/);
    expect(system).toContain("user: I moved to Porto");
    // The agent goes on in the graph's session: one thread through both doors.
    await agent.invoke({ messages: [...state.messages, new HumanMessage("Thanks!")] }, { context: s1 });
    await memory.settled();
    const after = await graph.sessionMessages(s1);
    expect(after?.map((m) => m.text).slice(-4)).toEqual(["What is my cat called?", "Your cat is called Miso.", "Thanks!", "ok: Thanks!"]);
    const next = await graph.runTurn({ ...s1, message: "Bye" });
    expect(next.status).toBe("OK");
    expect(texts(chatModel.prompts.at(-1) ?? []).join("\n")).toContain("human: Thanks!");
    await graph.close();
    await memory.close();
  });
}
