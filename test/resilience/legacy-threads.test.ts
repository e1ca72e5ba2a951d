import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { emptyCheckpoint, type BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { setLogLevel } from "../../src/logger.js";
import { legacyThreadOf, threadIdOf } from "../../src/memory/scope.js";
import { getTupleAdopting } from "../../src/resilience/legacy-threads.js";
import { SqliteCheckpointer } from "../../src/storage/sqlite/checkpointer.js";

setLogLevel("silent");

describe("legacyThreadOf", () => {
  it.each([
    { case: "ids without '.', ':' or '%'", scope: { tenantId: "acme", userId: "ann", sessionId: "s1" }, legacy: undefined },
    { case: "an e-mail user id", scope: { tenantId: "acme", userId: "ann@mail.example", sessionId: "s1" }, legacy: "acme/ann@mail.example/s1" },
    { case: "every escaped character", scope: { tenantId: "t:1", userId: "100%", sessionId: "a.b" }, legacy: "t:1/100%/a.b" },
    { case: "a tenant named langgraph", scope: { tenantId: "langgraph", userId: "u", sessionId: "s" }, legacy: "langgraph/u/s" },
    // The old id `t/a%2Eb/s` is the current thread of user `a.b`: never taken for user `a%2Eb`'s.
    { case: "an id whose old thread is another user's current one", scope: { tenantId: "t", userId: "a%2Eb", sessionId: "s" }, legacy: undefined },
  ])("$case", ({ scope, legacy }) => {
    expect(legacyThreadOf(threadIdOf(scope))).toBe(legacy);
  });

  it.each(["t/a.b/s", "just-one-id", "t/u/s/extra", "t/100%/s"])("names no old thread for %s, which is no session thread of this naming", (threadId) => {
    expect(legacyThreadOf(threadId)).toBeUndefined();
  });
});

describe("getTupleAdopting on a SQLite file", () => {
  let dir: string;
  let checkpointer: BaseCheckpointSaver;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const open = () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-adopt-"));
    checkpointer = new SqliteCheckpointer(new Database(path.join(dir, "c.db")), undefined, { ownsDb: true });
  };
  const at = (threadId: string) => ({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
  const scope = { tenantId: "acme", userId: "ann@mail.example", sessionId: "s1" };
  const threadId = threadIdOf(scope);
  const legacy = legacyThreadOf(threadId)!;

  it("moves the old thread's latest checkpoint, every channel and its pending writes, once", async () => {
    open();
    const first = { ...emptyCheckpoint(), id: "1", channel_values: { messages: ["old"] }, channel_versions: { messages: 1 } };
    const last = { ...emptyCheckpoint(), id: "2", channel_values: { messages: ["old", "older"], session: { turns: 2 } }, channel_versions: { messages: 2, session: 1 } };
    const saved = await checkpointer.put(at(legacy), first, { source: "loop", step: 0, parents: {} }, { messages: 1 });
    // The newest checkpoint stores only the channel that changed; the other is the first's.
    const latest = await checkpointer.put(saved, last, { source: "loop", step: 1, parents: {} }, { session: 1, messages: 2 });
    await checkpointer.putWrites(latest, [["messages", "pending"]], "task-1");

    const adopted = await getTupleAdopting(checkpointer, at(threadId));
    expect(adopted?.checkpoint.id).toBe("2");
    const reread = await checkpointer.getTuple(at(threadId));
    expect(reread?.checkpoint.channel_values).toEqual({ messages: ["old", "older"], session: { turns: 2 } });
    expect(reread?.pendingWrites).toEqual([["task-1", "messages", "pending"]]);
    expect(reread?.metadata?.step).toBe(1);
    expect(await checkpointer.getTuple(at(legacy))).toBeUndefined();
    // Again: the adopted checkpoint is read as it is, and nothing else changes.
    expect((await getTupleAdopting(checkpointer, at(threadId)))?.checkpoint.id).toBe("2");
  });

  it("leaves another user's current thread alone", async () => {
    open();
    const other = threadIdOf({ tenantId: "t", userId: "a.b", sessionId: "s" });
    await checkpointer.put(at(other), { ...emptyCheckpoint(), id: "1" }, { source: "input", step: -1, parents: {} }, {});
    expect(await getTupleAdopting(checkpointer, at(threadIdOf({ tenantId: "t", userId: "a%2Eb", sessionId: "s" })))).toBeUndefined();
    expect((await checkpointer.getTuple(at(other)))?.checkpoint.id).toBe("1");
  });

  it("adopts nothing for a given checkpoint id", async () => {
    open();
    await checkpointer.put(at(legacy), { ...emptyCheckpoint(), id: "1" }, { source: "input", step: -1, parents: {} }, {});
    expect(await getTupleAdopting(checkpointer, { configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: "1" } })).toBeUndefined();
    expect(await checkpointer.getTuple(at(legacy))).toBeDefined();
  });
});
