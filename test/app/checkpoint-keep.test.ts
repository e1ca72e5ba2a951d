import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createMemoryGraph } from "../../src/app/create-memory-graph.js";
import { threadIdOf } from "../../src/memory/scope.js";

describe("checkpoint history on the SQLite backend", () => {
  it("keeps the newest checkpointKeep checkpoints per session, and the session whole", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-keep-"));
    const graph = await createMemoryGraph({ backend: "sqlite", sqlitePath: path.join(dir, "m.db"), chatModel: null, checkpointKeep: 3 });
    const scope = { tenantId: "acme", userId: "u1", sessionId: "s1" };
    for (let i = 1; i <= 8; i += 1) await graph.runTurn({ ...scope, message: `turn ${i}` });
    const checkpoints = [];
    for await (const tuple of graph.persistence.checkpointer.list({ configurable: { thread_id: threadIdOf(scope) } })) checkpoints.push(tuple);
    expect(checkpoints).toHaveLength(3);
    const state = await graph.sessionState(scope);
    expect(state?.messages.filter((m) => m.getType() === "human").map((m) => m.content)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((i) => `turn ${i}`));
    await graph.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
