import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createMemoryGraph, PRUNE_SLACK } from "../../src/app/create-memory-graph.js";
import { threadIdOf } from "../../src/memory/scope.js";

describe("checkpoint history on the SQLite backend", () => {
  it("prunes back to checkpointKeep once PRUNE_SLACK more have gathered, and keeps the session whole", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-keep-"));
    const keep = 3;
    const graph = await createMemoryGraph({ backend: "sqlite", sqlitePath: path.join(dir, "m.db"), chatModel: null, checkpointKeep: keep, limits: { summaryInterval: 100 } });
    const scope = { tenantId: "acme", userId: "u1", sessionId: "s1" };
    const counts: number[] = [];
    const turns = keep + PRUNE_SLACK + 2;
    for (let i = 1; i <= turns; i += 1) {
      await graph.runTurn({ ...scope, message: `turn ${i}` });
      await graph.settled(); // pruning is upkeep, done after the reply
      let count = 0;
      for await (const _ of graph.persistence.checkpointer.list({ configurable: { thread_id: threadIdOf(scope) } })) count += 1;
      counts.push(count);
    }
    // One checkpoint per turn (no summary is due here: that turn would add one) until keep + slack, then back to keep, then growing again.
    expect(counts.slice(0, keep + PRUNE_SLACK)).toEqual(Array.from({ length: keep + PRUNE_SLACK }, (_, i) => i + 1));
    expect(counts.slice(keep + PRUNE_SLACK)).toEqual([keep, keep + 1]);
    // The window (trimmed by its own limits) still ends with the newest turns, in order.
    const state = await graph.sessionState(scope);
    const humans = state?.messages.filter((m) => m.getType() === "human").map((m) => m.content) ?? [];
    expect(humans.length).toBeGreaterThan(keep);
    expect(humans).toEqual(Array.from({ length: humans.length }, (_, i) => `turn ${turns - humans.length + i + 1}`));
    await graph.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
