import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { getInputTypeSchema } from "@langchain/langgraph/zod/schema";
import { describe, expect, it } from "vitest";
import { graphDepsOf } from "../../src/app/create-memory-graph.js";
import { compileGraph } from "../../src/graph/build-graph.js";
import { textOf } from "../../src/messages/message-meta.js";

/**
 * The compiled graph as a host such as the LangGraph dev server runs it: the run's input is a
 * TurnInput, and the checkpointer saves every step (no `durability: "exit"` as in the facade).
 */
const who = { tenantId: "t", userId: "u", sessionId: "s" };

function graph() {
  const checkpointer = new MemorySaver();
  const app = compileGraph(graphDepsOf({ chatModel: null }), { checkpointer, store: new InMemoryStore() });
  return { app, checkpointer };
}

describe("the graph's input is a TurnInput", () => {
  it("answers a run whose input is {tenantId, userId, sessionId, message}, keeping the validated input only", async () => {
    const { app } = graph();
    const config = { configurable: { thread_id: "t1" } };
    const out = await app.invoke({ ...who, message: "My name is Anong" }, config);
    expect(out.status).toBe("OK");
    expect(out.candidate?.model).toBe("offline");
    expect(out.input).toEqual({ ...who, message: "My name is Anong" });
    const state = await app.getState(config);
    expect(state.next).toEqual([]);
    expect(state.values).not.toHaveProperty("message");
    expect(state.values).not.toHaveProperty("tenantId");
  });

  it("refuses the old nested shape and a bad id before anything runs or is saved", async () => {
    const { app, checkpointer } = graph();
    const config = { configurable: { thread_id: "t2" } };
    await expect(app.invoke({ input: { ...who, message: "hi" } } as never, config)).rejects.toThrow(/Unrecognized key/);
    await expect(app.invoke({ ...who, userId: "a/b", message: "hi" }, config)).rejects.toThrow(/userId|'\/'/);
    const saved = [];
    for await (const checkpoint of checkpointer.list({ configurable: config.configurable })) saved.push(checkpoint);
    expect(saved).toEqual([]);
  });

  it("forgets a failed run's input: the next run is not given its parentMessageId", async () => {
    const { app } = graph();
    const config = { configurable: { thread_id: "t3" } };
    await app.invoke({ ...who, message: "first" }, config);
    await expect(app.invoke({ ...who, message: "second", parentMessageId: "nope" }, config)).rejects.toMatchObject({ code: "UNKNOWN_PARENT" });
    expect((await app.getState(config)).next).toEqual(["ingest_prompt"]);
    const next = await app.invoke({ ...who, message: "third" }, config);
    expect(next.status).toBe("OK");
    expect(next.messages.map(textOf).filter((_, i) => i % 2 === 0)).toEqual(["first", "third"]);
  });

  it("describes its input schema with the TurnInput fields (what Studio's input form shows)", () => {
    const schema = getInputTypeSchema(graph().app) as { properties: Record<string, { description?: string }> };
    expect(Object.keys(schema.properties).sort()).toEqual(
      ["files", "memorySections", "message", "messageId", "metadata", "parentMessageId", "prompts", "remember", "sessionId", "tenantId", "topK", "useMemory", "userId"].sort(),
    );
    expect(schema.properties.sessionId?.description).toMatch(/thread/);
  });
});
