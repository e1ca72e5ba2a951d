import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { setLogLevel } from "../../src/logger.js";
import { encodeLabel } from "../../src/memory/scope.js";
import { HeldModel, raceRig, SHARED_ENGINES } from "../support/race-engines.js";

setLogLevel("silent");

describe.each(SHARED_ENGINES)("forgetting a user while a turn of theirs runs on another graph: %s", (_name, make) => {
  const rig = raceRig();

  it("waits for the turn, then leaves nothing that names the user in any table or key", async () => {
    const engine = await rig.open(make);
    const tenantId = `t-${randomUUID().slice(0, 8)}`;
    const userId = `frank-${randomUUID().slice(0, 8)}`;
    const email = `frank.${randomUUID().slice(0, 6)}@example.com`;
    const user = { tenantId, userId };
    const model = new HeldModel(["Noted, I will write to you there."]);
    // A summary and a title after the reply: the turn's upkeep writes too.
    const turning = await rig.graph(engine, { chatModel: model, limits: { summaryInterval: 1 }, sessionTitles: true });
    // The forgetting graph sees when forgetUser asks for the user's lock (an event, not a time).
    const { graph: forgetting, lockAsked } = await rig.lockWatchingGraph(engine, { chatModel: null });
    // Another user of the tenant, who must keep everything.
    await forgetting.runTurn({ tenantId, userId: "bystander", sessionId: "s1", message: "My email is bystander@example.com" });
    // What the user had before the race.
    await forgetting.runTurn({ ...user, sessionId: "s0", message: "I want to cancel my order 42 now" });
    await forgetting.settled();

    const turn = turning.runTurn({ ...user, sessionId: "s1", messageId: "m-1", message: `My email is ${email}` });
    await model.called;
    const forgotten = forgetting.forgetUser(user);
    let forgetEnded = false;
    void forgotten.then(() => (forgetEnded = true));
    await Promise.race([lockAsked, forgotten]);
    // It waits for the turn (before the change it had answered at once).
    expect(forgetEnded).toBe(false);
    model.release();
    const result = await turn;
    const counts = await forgotten;
    await turning.settled();

    expect(result.status).toBe("OK");
    // The forget came after the turn's writes: they were among what it deleted.
    expect(counts.sessions).toBe(2);
    const needles = [encodeLabel(userId), userId, email, "order 42"];
    expect(await engine.rowsWith(needles)).toEqual([]);
    expect(await turning.sessionMessages({ ...user, sessionId: "s1" })).toBeNull();
    expect(JSON.stringify(await turning.userMemory(user))).not.toContain(email);
    // The bystander's memory stays.
    expect((await engine.rowsWith(["bystander@example.com"])).length).toBeGreaterThan(0);
  });
});
