import { InMemoryStore, MemorySaver, type Operation } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { createMemoryGraph } from "../../src/app/create-memory-graph.js";
import { setLogLevel } from "../../src/logger.js";

/**
 * A turn whose long-term store goes away after the reply was written (here: the facts write of
 * classify_event is refused) is refused with MEMORY_STORE_UNAVAILABLE, and leaves the session as it
 * was: LangGraph checkpoints a run where it stopped even on an error, so the facade holds a turn's
 * checkpoint writes until its run has ended well.
 */

setLogLevel("silent");

class StoreLosingFacts extends InMemoryStore {
  down = false;
  override async batch<Op extends readonly Operation[]>(operations: Op) {
    if (this.down && operations.some((op) => "value" in op && op.namespace.includes("facts"))) {
      throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    }
    return super.batch(operations);
  }
}

describe("a turn refused after its reply was written", () => {
  it("leaves the checkpoint as it was, so the refused exchange is not on the session's thread", async () => {
    const store = new StoreLosingFacts();
    const memory = await createMemoryGraph({ persistence: { checkpointer: new MemorySaver(), store }, chatModel: null, storageTimeoutMs: 1000 });
    const scope = { tenantId: "t", userId: "u", sessionId: "s" };
    const first = await memory.runTurn({ ...scope, message: "Hello there." });
    const before = await memory.sessionState(scope);

    store.down = true;
    await expect(memory.runTurn({ ...scope, message: "My name is Anong and I live in Chiang Mai." })).rejects.toMatchObject({
      code: "MEMORY_STORE_UNAVAILABLE",
      dependency: "memory_store",
    });
    store.down = false;
    // Marked down by the refusal: a readiness check sees it answer again.
    expect((await memory.checkHealth()).every((dependency) => dependency.ok)).toBe(true);

    const after = await memory.sessionState(scope);
    expect(after?.session.lastMessageId).toBe(first.messageIds.assistant);
    expect(after?.messages.map((m) => m.id)).toEqual(before?.messages.map((m) => m.id));
    const next = await memory.runTurn({ ...scope, message: "Are you there?" });
    const thread = (await memory.sessionMessages(scope)) ?? [];
    expect(thread.map((m) => m.text).filter((_, i) => i % 2 === 0)).toEqual(["Hello there.", "Are you there?"]);
    expect(thread.at(-1)?.id).toBe(next.messageIds.assistant);
    await memory.close();
  });
});
