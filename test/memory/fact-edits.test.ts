import { describe, expect, it } from "vitest";
import { historyOf, planFactEdit } from "../../src/memory/fact-edits.js";
import { currentFacts, upsertFacts } from "../../src/memory/facts.js";
import type { FactRecord } from "../../src/memory/records.js";

const fact = (id: string, value: string, validFrom: string, validTo: string | null, extra: Partial<FactRecord> = {}): FactRecord => ({
  id,
  key: "location.city",
  value,
  text: `location city: ${value}`,
  validFrom,
  validTo,
  sourceMessageIds: [id],
  sessionId: "s1",
  ...extra,
});

const old = fact("a", "Bangkok", "2024-01-01T00:00:00.000Z", "2024-02-01T00:00:00.000Z");
const now = fact("b", "Chiang Mai", "2024-02-01T00:00:00.000Z", null);
const edit = { now: "2024-03-01T00:00:00.000Z", editId: "e1" };

describe("correcting facts", () => {
  it("gives every version of a key, oldest first, with what superseded it", () => {
    const facts = Object.freeze([now, old, { ...now, id: "x", key: "name", value: "Anong" }]);
    expect(historyOf(facts, now).map((v) => [v.id, v.supersededBy])).toEqual([["a", "b"], ["b", null]]);
  });

  it("edits the current version into a new one, closing it; a pin alone rewrites it in place", () => {
    const { fact: made, writes } = planFactEdit(Object.freeze([old, now]), "b", { value: "Lampang" }, edit);
    expect(made).toMatchObject({ id: "location.city@edit-e1", value: "Lampang", text: "location city: Lampang", validFrom: edit.now, validTo: null, source: "edit", sourceMessageIds: [] });
    expect(writes).toEqual([{ ...now, validTo: edit.now }, made]);
    expect(planFactEdit([old, now], "b", { pinned: true }, edit)).toEqual({ fact: { ...now, pinned: true }, writes: [{ ...now, pinned: true }] });
    expect(planFactEdit([old, now], "b", { value: "Chiang Mai" }, edit)).toEqual({ fact: now, writes: [] });
  });

  it.each([
    { id: "a", change: { value: "Phuket" }, code: "FACT_STALE" },
    { id: "zz", change: { value: "Phuket" }, code: "FACT_NOT_FOUND" },
    { id: "b", change: { value: "  " }, code: "INVALID_INPUT" },
  ])("refuses $code", ({ id, change, code }) => {
    expect(() => planFactEdit([old, now], id, change, edit)).toThrow(expect.objectContaining({ code }));
  });

  it("answers a retried edit of a superseded version with the version that edit made", () => {
    const edited = fact("location.city@edit-e0", "Phuket", "2024-02-15T00:00:00.000Z", null, { source: "edit" });
    const closed = { ...now, validTo: edited.validFrom };
    expect(planFactEdit([old, closed, edited], "b", { value: "Phuket" }, edit)).toEqual({ fact: edited, writes: [] });
  });

  it("never supersedes a pinned fact by extraction; pinned facts come first, one per key", () => {
    const pinned = { ...now, pinned: true as const };
    expect(upsertFacts([pinned], [{ key: "location.city", value: "Paris" }], { messageId: "m9", sessionId: "s1", now: edit.now })).toEqual([]);
    const other = fact("n", "Anong", "2024-05-01T00:00:00.000Z", null, { key: "name" });
    const racing = fact("c", "Krabi", "2024-04-01T00:00:00.000Z", null);
    expect(currentFacts([other, racing, pinned, old]).map((f) => f.id)).toEqual(["b", "n"]);
  });
});
