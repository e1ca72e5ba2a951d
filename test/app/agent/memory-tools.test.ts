import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createAgent } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { memoryMiddleware } from "../../../src/entries/agent.js";
import { textOf } from "../../../src/messages/message-meta.js";
import { answeringModel } from "../../support/agent.js";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "mg-tools-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const alice = { tenantId: "acme", userId: "alice" };
const bob = { tenantId: "acme", userId: "bob" };

/** A model that calls `tool` with `args` on the user's message, then answers with what the tool said. */
function callingModel(tool: string, args: Record<string, unknown>) {
  return answeringModel((messages: BaseMessage[]) => {
    const last = messages.at(-1);
    if (last && ToolMessage.isInstance(last)) return `tool said: ${textOf(last)}`;
    return new AIMessage({ content: "", tool_calls: [{ id: randomUUID(), name: tool, args, type: "tool_call" }] });
  });
}

async function setUp() {
  const memory = await memoryMiddleware({ sqlitePath: path.join(dir, "memory.db"), tools: true, logger: false });
  const teller = createAgent({ model: answeringModel(), middleware: [memory] });
  await teller.invoke({ messages: [new HumanMessage("I live in Lisbon")] }, { context: { ...alice, sessionId: "a1" } });
  await memory.settled();
  const [fact] = await memory.graph.listFacts(alice, { current: true });
  if (!fact) throw new Error("no fact learned");
  /** One turn of an agent whose model calls `tool` with `args`, as `who`: what the tool said. */
  const ask = async (who: typeof alice, tool: string, args: Record<string, unknown>) => {
    const agent = createAgent({ model: callingModel(tool, args), middleware: [memory] });
    const state = await agent.invoke({ messages: [new HumanMessage("please")] }, { context: { ...who, sessionId: `${who.userId}-tools` } });
    await memory.settled();
    const said = state.messages.find((m) => ToolMessage.isInstance(m));
    return said ? textOf(said) : "";
  };
  return { memory, fact, ask };
}

describe("the memory tools", () => {
  it("give the model the context's user's memory, whatever user its arguments name", async () => {
    const { memory, fact, ask } = await setUp();
    expect(await ask(alice, "search_memory", { query: "Lisbon" })).toContain("Lisbon");
    // Bob's agent asks for Alice's memory by name, by her fact's id and by key: it gets none of it.
    expect(await ask(bob, "search_memory", { query: "Lisbon", userId: "alice", tenantId: "acme" })).toBe("Nothing in memory matches.");
    expect(await ask(bob, "forget", { factId: fact.id, userId: "alice" })).toBe("No such fact in memory.");
    expect(await ask(bob, "forget", { key: "location.city", userId: "alice" })).toBe("No such fact in memory.");
    expect(await ask(bob, "remember", { key: "city", value: "Oslo", userId: "alice" })).toBe("Remembered city: Oslo.");
    expect((await memory.graph.listFacts(alice, { current: true })).map((f) => f.value)).toEqual(["Lisbon"]);
    const bobs = await memory.graph.listFacts(bob, { current: true });
    expect(bobs.map((f) => [f.key, f.value])).toEqual([["city", "Oslo"]]);
    // What the tool remembered came from the turn's user message: its provenance is that message.
    const [said] = await memory.graph.listMessages({ ...bob, sessionId: "bob-tools" }).then((messages) => messages.filter((m) => m.role === "user"));
    expect(bobs[0]?.sourceMessageIds).toEqual([said?.id]);
    await memory.close();
  });

  it("forget a fact by key: the fact goes, and its value leaves what was said", async () => {
    const { memory, ask } = await setUp();
    expect(await ask(alice, "forget", { key: "location city" })).toMatch(/^Forgotten \(1 version\)/);
    expect(await memory.graph.listFacts(alice)).toEqual([]);
    const said = await memory.graph.listMessages({ ...alice, sessionId: "a1" });
    expect(said.map((m) => m.text).join(" ")).not.toContain("Lisbon");
    expect(await ask(alice, "search_memory", { query: "Lisbon" })).toBe("Nothing in memory matches.");
    await memory.close();
  });

  it("are given as asked: all, some or none", async () => {
    const file = path.join(dir, "memory.db");
    const names = async (tools?: boolean | ("search_memory" | "remember" | "forget")[]) => {
      const memory = await memoryMiddleware({ sqlitePath: file, logger: false, ...(tools === undefined ? {} : { tools }) });
      await memory.close();
      return (memory.tools ?? []).map((tool) => tool.name);
    };
    expect(await names(true)).toEqual(["search_memory", "remember", "forget"]);
    expect(await names(["search_memory"])).toEqual(["search_memory"]);
    expect(await names()).toEqual([]);
    await expect(names(["recall" as never])).rejects.toMatchObject({ code: "INVALID_INPUT", field: "tools" });
  });
});
