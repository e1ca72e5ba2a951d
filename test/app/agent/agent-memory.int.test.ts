import { randomUUID } from "node:crypto";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryMiddleware } from "../../../src/entries/agent.js";
import { postgresRows } from "../../support/every-row.js";
import { createTempDatabase } from "../../support/postgres.js";
import { answeringModel } from "../../support/agent.js";
import { itSharesMemoryWithTheGraph } from "./both-doors.js";

let database: Awaited<ReturnType<typeof createTempDatabase>>;
beforeAll(async () => {
  database = await createTempDatabase();
});
afterAll(async () => {
  await database.drop();
});

describe("the agent middleware and the graph on one Postgres database", () => {
  itSharesMemoryWithTheGraph(() => ({ backend: "postgres", databaseUrl: database.url }));

  it("writes nothing new for a retry with the same messageId, and nothing for a bad user id", async () => {
    const memory = await memoryMiddleware({ backend: "postgres", databaseUrl: database.url, logger: false });
    const model = answeringModel();
    const agent = createAgent({ model, middleware: [memory] });
    const context = { tenantId: "acme", userId: "bo", sessionId: "s1", messageId: "m-1" };
    await agent.invoke({ messages: [new HumanMessage("I live in Oslo")] }, { context });
    await memory.settled();
    const rows = await postgresRows(database.url);
    await agent.invoke({ messages: [new HumanMessage("I live in Oslo")] }, { context });
    await expect(agent.invoke({ messages: [new HumanMessage("I live in Oslo")] }, { context: { ...context, userId: "bo/../ada" } })).rejects.toMatchObject({ code: "INVALID_ID", field: "userId" });
    await memory.settled();
    expect(model.callCount).toBe(1);
    expect(await postgresRows(database.url)).toEqual(rows);
    await memory.close();
  });

  it("keeps the agent's sessions in Redis (its checkpointer) and its memory in Postgres, tool calls included", async () => {
    const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
    const memory = await memoryMiddleware({ backend: "redis", redisUrl, databaseUrl: database.url, tools: ["remember"], logger: false });
    // The model asks to remember on its first call of a turn, and answers with what the tool said on the next.
    const model = answeringModel((messages) => {
      const last = messages.at(-1);
      if (last && ToolMessage.isInstance(last)) return `done: ${last.text}`;
      return new AIMessage({ content: "", tool_calls: [{ id: randomUUID(), name: "remember", args: { key: "favourite tea", value: "sencha" }, type: "tool_call" }] });
    });
    const agent = createAgent({ model, middleware: [memory], checkpointer: memory.checkpointer });
    const user = { tenantId: "acme", userId: `cy-${randomUUID().slice(0, 8)}` };
    const config = { context: { ...user, sessionId: "s1" }, configurable: { thread_id: `agent-${user.userId}` } };
    await agent.invoke({ messages: [new HumanMessage("Remember that I like sencha")] }, config);
    const state = await agent.invoke({ messages: [new HumanMessage("And again, please")] }, config);
    await memory.settled();
    expect(state.messages.map((m) => m.getType())).toEqual(["human", "ai", "tool", "ai", "human", "ai", "tool", "ai"]);
    expect(state.messages.at(-1)?.text).toBe("done: Already known.");
    expect((await memory.graph.listFacts(user, { current: true })).map((f) => [f.key, f.value])).toContainEqual(["favourite_tea", "sencha"]);
    const stored = await memory.graph.sessionMessages({ ...user, sessionId: "s1" });
    expect(stored?.map((m) => m.text)).toEqual(["Remember that I like sencha", "done: Remembered favourite_tea: sencha.", "And again, please", "done: Already known."]);
    await memory.close();
  });
});
