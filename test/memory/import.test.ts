import { InMemoryStore } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { applyImport, planImport, sessionRecords } from "../../src/memory/import.js";
import { importSessionsSchema, MAX_IMPORT_CHARS, parseImport, validatedImport } from "../../src/memory/import-schema.js";
import type { TranscriptRecord } from "../../src/memory/records.js";
import { currentLeaf } from "../../src/memory/session-continuity.js";

const session = {
  sessionId: "s1",
  startedAt: "2024-03-02T10:00:00+07:00",
  messages: [
    { id: "a", role: "user" as const, text: "one" },
    { id: "b", role: "assistant" as const, text: "two", createdAt: "2024-03-02T12:00:00Z" },
    { id: "c", role: "user" as const, text: "three", parentId: "a" },
  ],
};

const fact = (fields: Record<string, unknown> = {}) => ({
  id: "city@a",
  key: "city",
  value: "Bangkok",
  text: "city: Bangkok",
  validFrom: "2024-03-02T10:00:00Z",
  validTo: null,
  sourceMessageIds: ["a"],
  sessionId: "s1",
  ...fields,
});
const documentWith = (layers: Record<string, unknown[]>) => ({ version: 1, userId: "u", sessions: [session], events: [], facts: [], summaries: [], ...layers });

describe("parseImport", () => {
  it("takes a list of sessions, times normalised to UTC", () => {
    const parsed = parseImport([session]);
    expect(parsed.sessions[0]?.startedAt).toBe("2024-03-02T03:00:00.000Z");
    expect(parsed).toMatchObject({ events: [], facts: [], summaries: [] });
  });

  it.each([
    { input: [{ ...session, startedAt: "2 March" }], field: "0.startedAt", code: "INVALID_INPUT" },
    { input: [{ ...session, messages: [] }], field: "0.messages", code: "INVALID_INPUT" },
    { input: [{ ...session, messages: [{ id: "a/b", role: "user", text: "x" }] }], field: "0.messages.0.id", code: "INVALID_INPUT" },
    { input: [{ ...session, messages: [{ id: "a", role: "user", text: "x", mood: "ok" }] }], field: "0.messages.0.mood", code: "UNKNOWN_FIELD" },
    { input: { version: 1, userId: "u", sessions: [session], events: [], facts: [], summaries: [{ id: "s" }] }, field: "summaries.0.text", code: "INVALID_INPUT" },
    { input: "sessions", field: "input", code: "INVALID_INPUT" },
    { input: documentWith({ facts: [fact({ id: "weird/../id" })] }), field: "facts.0.id", code: "INVALID_INPUT" },
    { input: documentWith({ facts: [fact({ key: "City", id: "City@a" })] }), field: "facts.0.key", code: "INVALID_INPUT" },
    { input: documentWith({ facts: [fact({ validTo: "2024-03-01T00:00:00Z" })] }), field: "facts.0.validTo", code: "INVALID_INPUT" },
    { input: documentWith({ turns: [{ sessionId: "s1", key: "a", text: "one", parentMessageId: null, result: { candidate: 5 }, createdAt: "2024-03-02T12:00:00Z" }] }), field: "turns.0.result", code: "INVALID_INPUT" },
    { input: documentWith({ entities: [{ key: "Priya", name: "Priya", kind: "person", aliases: [], mentions: [], relations: [], updatedAt: "2024-03-02T12:00:00Z" }] }), field: "entities.0.key", code: "INVALID_INPUT" },
    {
      input: documentWith({ entities: [{ key: "priya", name: "Priya", kind: "person", aliases: [], mentions: [], relations: [{ type: "lives_in", to: "pune", validFrom: "2024-03-02T12:00:00Z", validTo: "2024-03-01T12:00:00Z", sources: [{ sessionId: "s1", messageId: "a" }] }], updatedAt: "2024-03-02T12:00:00Z" }] }),
      field: "entities.0.relations.0.validTo",
      code: "INVALID_INPUT",
    },
  ])("names the bad element: $field", ({ input, field, code }) => {
    expect(() => parseImport(input)).toThrow(expect.objectContaining({ field, code, kind: "user" }));
  });

  it("takes an import parsed by these rules as it is (the HTTP service checks a request once)", () => {
    const parsed = importSessionsSchema.parse([session]);
    expect(parseImport(validatedImport(parsed)).sessions).toBe(parsed);
    expect(parseImport([session]).sessions).not.toBe(parsed);
  });

  it("refuses an import over the character bound before reading its fields", () => {
    const big = [{ sessionId: 7, messages: [{ text: "x".repeat(MAX_IMPORT_CHARS + 1) }] }];
    expect(() => parseImport(big)).toThrow(expect.objectContaining({ code: "IMPORT_TOO_LARGE" }));
  });
});

describe("sessionRecords", () => {
  const parsed = parseImport([session]).sessions[0]!;

  it("dates a message without createdAt by its place, and chains parents in order unless one is given", () => {
    const records = sessionRecords(parsed, "0", new Map());
    expect(records.map((r) => [r.id, r.createdAt, r.parentId])).toEqual([
      ["a", "2024-03-02T03:00:00.000Z", null],
      ["b", "2024-03-02T12:00:00.000Z", "a"],
      ["c", "2024-03-02T03:00:02.000Z", "a"],
    ]);
  });

  it("refuses a parent neither in the session nor stored, and accepts one that is stored", () => {
    const orphan = { ...parsed, messages: [{ ...parsed.messages[0]!, parentId: "zz" }] };
    expect(() => sessionRecords(orphan, "3", new Map())).toThrow(expect.objectContaining({ code: "UNKNOWN_PARENT", field: "3.messages.0.parentId" }));
    const stored = new Map([["zz", { id: "zz" } as TranscriptRecord]]);
    expect(sessionRecords(orphan, "3", stored)[0]?.parentId).toBe("zz");
  });
});

describe("an imported session's current thread", () => {
  it("ends at its newest message, though the whole session was written in one batch", async () => {
    const store = new InMemoryStore();
    const user = { tenantId: "t", userId: "u" };
    const messages = Array.from({ length: 30 }, (_, i) => ({ id: `x${i}`, role: i % 2 === 0 ? ("user" as const) : ("assistant" as const), text: `message ${i}` }));
    await applyImport(store, await planImport(store, user, parseImport([{ sessionId: "s", startedAt: "2024-01-01T00:00:00Z", messages }]), ""));
    // No checkpoint and no continuity mark: the transcript names the leaf.
    expect(await currentLeaf(store, { ...user, sessionId: "s" }, null, 40)).toBe("x29");
    expect(await currentLeaf(store, { ...user, sessionId: "other" }, null, 40)).toBeNull();
  });
});

describe("planImport's checks across records", () => {
  const user = { tenantId: "t", userId: "u" };
  const plan = (store: InMemoryStore, layers: Record<string, unknown[]>) => planImport(store, user, parseImport(documentWith(layers)), "");

  it.each<{ layers: Record<string, unknown[]>; field: string }>([
    { layers: { facts: [fact(), fact({ value: "Hanoi" })] }, field: "facts.1.id" },
    { layers: { facts: [fact({ id: "city@b", sourceMessageIds: ["b"] }), fact()] }, field: "facts.1.validTo" },
    { layers: { summaries: [1, 2].map(() => ({ id: "sum", text: "t", sessionId: "s1", fromMessageId: "a", toMessageId: "c", messageIds: ["a"], method: "rules", createdAt: "2024-03-02T12:00:00Z" })) }, field: "summaries.1.id" },
  ])("refuses $field", async ({ layers, field }) => {
    await expect(plan(new InMemoryStore(), layers)).rejects.toMatchObject({ code: "INVALID_INPUT", field, kind: "user" });
  });

  it("counts the stored current version of a key, unless the import writes over it", async () => {
    const store = new InMemoryStore();
    await applyImport(store, await plan(store, { facts: [fact()] }));
    await expect(plan(store, { facts: [fact({ id: "city@b", sourceMessageIds: ["b"] })] })).rejects.toMatchObject({ field: "facts.0.validTo" });
    const closed = fact({ validTo: "2024-03-02T11:00:00Z" });
    await expect(plan(store, { facts: [closed, fact({ id: "city@b", sourceMessageIds: ["b"], validFrom: "2024-03-02T11:00:00Z" })] })).resolves.toMatchObject({ counts: { facts: 2 } });
  });
});
