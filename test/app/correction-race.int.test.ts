import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { MemoryGraph } from "../../src/app/create-memory-graph.js";
import { setLogLevel } from "../../src/logger.js";
import { HeldModel, raceRig, SHARED_ENGINES } from "../support/race-engines.js";

setLogLevel("silent");

/**
 * A person deletes something on one instance while a turn of theirs runs on another, whose reply,
 * summary and title (made from what the turn read) all name it. The delete waits for the turn and
 * its upkeep, then takes the name out of everything, so no row written by that turn keeps it.
 */
describe.each(SHARED_ENGINES)("a delete while a turn of the same user runs on another graph: %s", (_name, make) => {
  const rig = raceRig();

  const deletes: [string, (graph: MemoryGraph, user: { tenantId: string; userId: string }) => Promise<unknown>][] = [
    ["an entity", (graph, user) => graph.deleteEntity(user, "Priya")],
    [
      "a fact",
      async (graph, user) => {
        const fact = (await graph.listFacts(user)).find((item) => item.value.includes("Priya"));
        if (!fact) throw new Error("no fact names Priya");
        return graph.deleteFact(user, fact.id, { versions: "all" });
      },
    ],
  ];

  it.each(deletes)("%s: the delete waits for the turn and its upkeep, then no row names it", async (_what, remove) => {
    const engine = await rig.open(make);
    const user = { tenantId: `t-${randomUUID().slice(0, 8)}`, userId: `u-${randomUUID().slice(0, 8)}` };
    // Reply, summary and title alike name her: whichever the turn asks for, it writes the name.
    const model = new HeldModel(["Good news for Priya!", "The user's sister Priya now works at Infosys.", "Priya at Infosys"]);
    const turning = await rig.graph(engine, { chatModel: model, classifierModel: null, limits: { summaryInterval: 1 }, sessionTitles: true });
    const { graph: deleting, lockAsked } = await rig.lockWatchingGraph(engine, { chatModel: null, classifierModel: null });
    await deleting.runTurn({ ...user, sessionId: "s0", message: "My sister's name is Priya" });
    await deleting.settled();
    expect((await engine.rowsWith(["Priya"])).length).toBeGreaterThan(0);

    const turn = turning.runTurn({ ...user, sessionId: "s1", message: "Priya started a new job at Infosys" });
    await model.called;
    const deleted = remove(deleting, user);
    let deleteEnded = false;
    void deleted.then(() => (deleteEnded = true));
    await Promise.race([lockAsked, deleted]);
    expect(deleteEnded).toBe(false);
    model.release();
    expect((await turn).status).toBe("OK");
    await deleted;
    await turning.settled();

    // Only a fact's undo record keeps it, for the minute its undo lasts (memory-controls.md).
    expect((await engine.rowsWith(["Priya"])).filter((row) => !row.includes("fact-undo"))).toEqual([]);
    const next = await deleting.runTurn({ ...user, sessionId: "s2", message: "How is my sister doing at Infosys?" });
    expect(next.memoryContext.text).not.toContain("Priya");
  });
});
