import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { createAgent } from "langchain";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { memoryMiddleware } from "../../../src/entries/agent.js";
import { sqliteRows } from "../../support/every-row.js";
import { memoryBlock } from "../../../src/memory/context.js";
import { answeringModel, GatedModel, systemTextOf } from "../../support/agent.js";

let dir = "";
let file = "";
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "mg-agent-"));
  file = path.join(dir, "memory.db");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ada = { tenantId: "acme", userId: "ada" };

describe("memoryMiddleware on a SQLite file", () => {
  it("remembers a fact across sessions: the next session's model sees it in its system message", async () => {
    const memory = await memoryMiddleware({ sqlitePath: file, logger: false });
    const model = answeringModel();
    const agent = createAgent({ model, systemPrompt: "You are Ada's assistant.", middleware: [memory] });
    await agent.invoke({ messages: [new HumanMessage("I live in Lisbon")] }, { context: { ...ada, sessionId: "monday" } });
    await memory.settled();
    const later = await agent.invoke({ messages: [new HumanMessage("Where do I live?")] }, { context: { ...ada, sessionId: "friday" } });
    expect(later.messages.at(-1)?.text).toBe("ok: Where do I live?");
    const system = systemTextOf(model.calls.at(-1)?.messages ?? []);
    expect(system).toContain("You are Ada's assistant.");
    expect(system).toContain("Memory of this user");
    expect(system).toMatch(/location city: Lisbon/);
    const facts = await memory.graph.listFacts(ada, { current: true });
    expect(facts.map((fact) => [fact.key, fact.value])).toEqual([["location.city", "Lisbon"]]);
    await memory.close();
  });

  it("a retry with the same messageId replays the answer: the model is not asked again and nothing new is written", async () => {
    const memory = await memoryMiddleware({ sqlitePath: file, logger: false });
    const model = answeringModel();
    const agent = createAgent({ model, middleware: [memory] });
    const context = { ...ada, sessionId: "s1", messageId: "m-1" };
    const first = await agent.invoke({ messages: [new HumanMessage("My order 1234 arrived broken")] }, { context });
    await memory.settled();
    const rows = sqliteRows(file);
    const retry = await agent.invoke({ messages: [new HumanMessage("My order 1234 arrived broken")] }, { context });
    await memory.settled();
    expect(model.callCount).toBe(1);
    expect(retry.messages.at(-1)?.text).toBe(first.messages.at(-1)?.text);
    expect(retry.messages.map((m) => m.id)).toEqual(first.messages.map((m) => m.id));
    expect(sqliteRows(file)).toEqual(rows);
    const stored = await memory.graph.listMessages({ ...ada, sessionId: "s1" });
    expect(stored.map((m) => [m.role, m.text])).toEqual([
      ["assistant", "ok: My order 1234 arrived broken"],
      ["user", "My order 1234 arrived broken"],
    ]);
    expect(stored[1]?.id).toBe("m-1");
    await expect(agent.invoke({ messages: [new HumanMessage("Something else")] }, { context })).rejects.toMatchObject({ code: "MESSAGE_ID_CONFLICT" });
    await memory.close();
  });

  it.each([
    { field: "tenantId", context: { tenantId: "acme/other", userId: "ada", sessionId: "s1" } },
    { field: "userId", context: { tenantId: "acme", userId: "..", sessionId: "s1" } },
    { field: "userId", context: { tenantId: "acme", userId: "", sessionId: "s1" } },
    { field: "sessionId", context: { tenantId: "acme", userId: "ada", sessionId: "a\u202Eb" } },
    { field: "tenantId", context: { userId: "ada", sessionId: "s1" } },
  ])("a bad $field in the context is a clear error, and nothing is stored", async ({ field, context }) => {
    const memory = await memoryMiddleware({ sqlitePath: file, logger: false });
    const model = answeringModel();
    const agent = createAgent({ model, middleware: [memory] });
    const rows = sqliteRows(file);
    await expect(agent.invoke({ messages: [new HumanMessage("I live in Lisbon")] }, { context: context as never })).rejects.toMatchObject({ name: "MemoryGraphError", code: "INVALID_ID", field });
    await memory.settled();
    expect(model.callCount).toBe(0);
    expect(sqliteRows(file)).toEqual(rows);
    await memory.close();
  });

  it("keeps nothing of an incognito turn, and uses no memory when asked not to", async () => {
    const memory = await memoryMiddleware({ sqlitePath: file, logger: false });
    const model = answeringModel();
    const agent = createAgent({ model, middleware: [memory] });
    await agent.invoke({ messages: [new HumanMessage("I live in Lisbon")] }, { context: { ...ada, sessionId: "s1" } });
    await memory.settled();
    const rows = sqliteRows(file);
    await agent.invoke({ messages: [new HumanMessage("I moved to Porto")] }, { context: { ...ada, sessionId: "s2", remember: false } });
    await memory.settled();
    expect(sqliteRows(file)).toEqual(rows);
    await agent.invoke({ messages: [new HumanMessage("Where do I live?")] }, { context: { ...ada, sessionId: "s3", useMemory: false, remember: false } });
    expect(systemTextOf(model.calls.at(-1)?.messages ?? [])).not.toContain("Lisbon");
    await agent.invoke({ messages: [new HumanMessage("Where do I live?")] }, { context: { ...ada, sessionId: "s3", remember: false } });
    expect(systemTextOf(model.calls.at(-1)?.messages ?? [])).toContain("Lisbon");
    await expect(agent.invoke({ messages: [new HumanMessage("hi")] }, { context: { ...ada, sessionId: "s3", topK: 500 } })).rejects.toMatchObject({ code: "INVALID_INPUT", field: "topK" });
    await memory.close();
  });

  it("keeps the agent's thread in its checkpointer: what the agent has is not recalled again, and a due summary is made", async () => {
    const memory = await memoryMiddleware({ sqlitePath: file, logger: false, limits: { summaryInterval: 2 } });
    const model = answeringModel();
    const agent = createAgent({ model, middleware: [memory], checkpointer: memory.checkpointer });
    const config = { context: { ...ada, sessionId: "s1" }, configurable: { thread_id: "ada-s1" } };
    await agent.invoke({ messages: [new HumanMessage("I have a cat called Miso")] }, config);
    const state = await agent.invoke({ messages: [new HumanMessage("What should I feed her?")] }, config);
    await memory.settled();
    // The first turn is in the agent's own messages: memory shows what was learned, not the turn again.
    const system = systemTextOf(model.calls.at(-1)?.messages ?? []);
    expect(system).toMatch(/pet cat: Miso/);
    expect(system).not.toContain("Most recent earlier turns");
    expect(state.messages.map((m) => m.text)).toEqual(["I have a cat called Miso", "ok: I have a cat called Miso", "What should I feed her?", "ok: What should I feed her?"]);
    // The agent's messages carry the ids memory stored them under; its private turn is cleared.
    const stored = await memory.graph.sessionMessages({ ...ada, sessionId: "s1" });
    expect(stored?.map((m) => m.id)).toEqual(state.messages.map((m) => m.id));
    expect((await agent.graph.getState(config)).values).not.toHaveProperty("_memoryTurn", expect.anything());
    // Two answered pairs make a summary due: made after the reply, covering the session's thread.
    const [summary] = await memory.graph.listSummaries(ada);
    expect(summary?.messageIds).toEqual(state.messages.map((m) => m.id));
    await memory.close();
  });

  it("classifies off the session's lock: the session's next turn is answered while the last turn's classifier call is out, and the turns' classifications are kept in order", async () => {
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    // Memory's own model (classification): every call waits for the gate, then answers nothing usable (the keyword classifier takes over).
    const memoryModel = new GatedModel(gate);
    const memory = await memoryMiddleware({ sqlitePath: file, logger: false, model: memoryModel });
    const agent = createAgent({ model: answeringModel(), middleware: [memory] });
    const context = { context: { ...ada, sessionId: "s1" } };
    await agent.invoke({ messages: [new HumanMessage("I live in Lisbon")] }, context);
    await vi.waitFor(() => expect(memoryModel.callCount).toBe(1));
    // Under the lock, this turn would wait for the first turn's classifier call, which waits for the gate.
    const second = await agent.invoke({ messages: [new HumanMessage("I moved to Porto last week")] }, context);
    expect(second.messages.at(-1)?.text).toBe("ok: I moved to Porto last week");
    expect(memoryModel.callCount).toBe(1);
    open();
    await memory.settled();
    expect(memoryModel.callCount).toBe(2);
    const facts = await memory.graph.listFacts(ada, {});
    expect(facts.filter((fact) => fact.key === "location.city").map((fact) => [fact.value, fact.validTo === null])).toEqual(
      expect.arrayContaining([
        ["Porto", true],
        ["Lisbon", false],
      ]),
    );
    await memory.close();
  });

  it("what memory cuts out or forgets, the agent's model stops reading from the agent's own thread too", async () => {
    const memory = await memoryMiddleware({ sqlitePath: file, logger: false });
    const model = answeringModel();
    const agent = createAgent({ model, middleware: [memory], checkpointer: memory.checkpointer });
    const config = { context: { ...ada, sessionId: "s1" }, configurable: { thread_id: "ada-s1" } };
    const said = (messages: readonly { text: string }[]) => messages.map((m) => m.text).join("\n");
    await agent.invoke({ messages: [new HumanMessage("I live in Lisbon")] }, config);
    await agent.invoke({ messages: [new HumanMessage("My order 1234 arrived broken")] }, config);
    await memory.settled();
    const city = (await memory.graph.listFacts(ada, { current: true })).find((fact) => fact.key === "location.city");
    await memory.graph.deleteFact(ada, city?.id ?? "", { versions: "all" });
    await agent.invoke({ messages: [new HumanMessage("What do you know about me?")] }, config);
    const afterDelete = said(model.calls.at(-1)?.messages ?? []);
    expect(afterDelete).toContain("I live in [removed]");
    expect(afterDelete).toContain("My order 1234 arrived broken");
    expect(afterDelete).not.toContain("Lisbon");
    expect(said((await agent.graph.getState(config)).values.messages)).not.toContain("Lisbon");
    await memory.settled();
    await memory.graph.forgetSession({ ...ada, sessionId: "s1" });
    await agent.invoke({ messages: [new HumanMessage("Anything else?")] }, config);
    // The forgotten session's messages are gone from what the model is sent and from the thread; the new turn stays.
    const afterForget = (model.calls.at(-1)?.messages ?? []).filter((m) => m.getType() !== "system");
    expect(afterForget.map((m) => m.text)).toEqual(["Anything else?"]);
    expect((await agent.graph.getState(config)).values.messages.map((m: { text: string }) => m.text)).toEqual(["Anything else?", "ok: Anything else?"]);
    await memory.close();
  });

  it("gives the model the memory block the graph gives its model for the same message (sections, order, budget)", async () => {
    const memory = await memoryMiddleware({ sqlitePath: file, logger: false, limits: { context: { tokenBudget: 120 } } });
    const model = answeringModel();
    const agent = createAgent({ model, middleware: [memory] });
    for (const [sessionId, text] of [["s1", "My name is Ada and I live in Lisbon"], ["s1", "My order 1234 arrived broken"], ["s2", "I have a cat called Miso"]] as const) {
      await agent.invoke({ messages: [new HumanMessage(text)] }, { context: { ...ada, sessionId } });
    }
    await memory.settled();
    const question = "What was wrong with my order, and what is my cat called?";
    // Neither door keeps this turn, so both recall from the same memory.
    await agent.invoke({ messages: [new HumanMessage(question)] }, { context: { ...ada, sessionId: "s3", remember: false } });
    const graphTurn = await memory.graph.runTurn({ ...ada, sessionId: "s4", message: question, remember: false });
    expect(graphTurn.memoryContext.text).toContain("## ");
    expect(graphTurn.memoryContext.tokens).toBeLessThanOrEqual(120);
    expect(systemTextOf(model.calls.at(-1)?.messages ?? [])).toBe(memoryBlock(graphTurn.memoryContext));
    await memory.close();
  });

  it("corrects what the agent's earlier messages say of a fact that changed since, in what the model is sent only", async () => {
    const memory = await memoryMiddleware({ sqlitePath: file, logger: false });
    const model = answeringModel();
    const agent = createAgent({ model, middleware: [memory], checkpointer: memory.checkpointer });
    const config = { context: { ...ada, sessionId: "s1" }, configurable: { thread_id: "ada-moves" } };
    for (const text of ["I live in Lisbon", "I moved to Porto", "Where do I live?"]) {
      await agent.invoke({ messages: [new HumanMessage(text)] }, config);
      await memory.settled();
    }
    const sent = (model.calls.at(-1)?.messages ?? []).map((m) => m.text);
    expect(sent[1]).toMatch(/^\(since \S+ location city is Porto, not Lisbon\) I live in Lisbon$/);
    expect(sent.at(-1)).toBe("Where do I live?");
    const kept = (await agent.graph.getState(config)).values.messages.map((m: { text: string }) => m.text);
    expect(kept[0]).toBe("I live in Lisbon");
    await memory.close();
  });
});
