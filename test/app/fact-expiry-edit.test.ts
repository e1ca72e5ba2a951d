import { createMemoryGraph, type MemoryGraph } from "../../src/app/create-memory-graph.js";
import { MemoryGraphError } from "../../src/errors.js";
import { setLogLevel } from "../../src/logger.js";
import { manualClock } from "../support/deps.js";

/** A fact bounded in time through the library's `updateFact` (`expiresAt`): it leaves the prompt once passed. */

setLogLevel("silent");
const user = { tenantId: "acme", userId: "u1" };
const HOUR = 3_600_000;
let graph: MemoryGraph;
afterEach(async () => graph.close());

async function setUp() {
  const clock = manualClock("2026-11-25T10:00:00.000Z");
  graph = await createMemoryGraph({ backend: "memory", chatModel: null, now: clock.now });
  await graph.runTurn({ ...user, sessionId: "s1", message: "I live in Chiang Mai" });
  await graph.runTurn({ ...user, sessionId: "s1", message: "I live in Bangkok" });
  const bangkok = (await graph.listFacts(user, { current: true })).find((fact) => fact.value === "Bangkok");
  if (!bangkok) throw new Error("no fact learned");
  const factsShown = async (sessionId: string) =>
    (await graph.runTurn({ ...user, sessionId, message: "Where do I live?" })).memoryContext.recalled?.facts.map((f) => f.value) ?? [];
  return { clock, bangkok, factsShown };
}

describe("updateFact with expiresAt", () => {
  it("bounds the current version in place (normalised to UTC); once passed the fact leaves the prompt and the value it superseded is back", async () => {
    const { clock, bangkok, factsShown } = await setUp();
    const bounded = await graph.updateFact(user, bangkok.id, { expiresAt: "2026-11-25T19:00:00+07:00" });
    expect(bounded).toMatchObject({ id: bangkok.id, value: "Bangkok", expiresAt: "2026-11-25T12:00:00.000Z" });
    expect(await factsShown("s2")).toContain("Bangkok");
    clock.advance(3 * HOUR);
    const after = await factsShown("s3");
    expect(after).not.toContain("Bangkok");
    expect(after).toContain("Chiang Mai");
  });

  it("a new value with expiresAt makes a bounded new version; expiresAt null lifts the bound", async () => {
    const { clock, bangkok, factsShown } = await setUp();
    const trip = await graph.updateFact(user, bangkok.id, { value: "Krabi", expiresAt: "2026-11-26T00:00:00Z" });
    expect(trip).toMatchObject({ value: "Krabi", source: "edit", expiresAt: "2026-11-26T00:00:00.000Z" });
    const lifted = await graph.updateFact(user, trip.id, { expiresAt: null });
    expect(lifted.expiresAt).toBeUndefined();
    clock.advance(48 * HOUR);
    expect(await factsShown("s2")).toContain("Krabi");
  });

  it.each([
    { expiresAt: "tomorrow" },
    { expiresAt: "2026-11-26" },
    { expiresAt: "2026-11-26T10:00:00" },
    { expiresAt: 1_764_000_000_000 },
    { expiresAt: "2026-13-40T10:00:00Z" },
  ])("refuses expiresAt $expiresAt with INVALID_INPUT naming it, changing nothing", async ({ expiresAt }) => {
    const { bangkok } = await setUp();
    const before = await graph.listFacts(user);
    const error = await graph.updateFact(user, bangkok.id, { value: "Paris", expiresAt } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryGraphError);
    expect(error).toMatchObject({ code: "INVALID_INPUT", field: "expiresAt" });
    expect(await graph.listFacts(user)).toEqual(before);
  });
});
