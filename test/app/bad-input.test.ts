import type { TurnInput } from "../../src/graph/state/turn-input.js";
import { describe, expect, it } from "vitest";
import { MemoryGraphError } from "../../src/errors.js";
import { memoryGraphForTest, scope } from "../support/deps.js";

const cases: { name: string; input: unknown; field: string }[] = [
  { name: "missing tenant", input: { userId: "u", sessionId: "s", message: "hi" }, field: "tenantId" },
  { name: "missing user", input: { tenantId: "t", sessionId: "s", message: "hi" }, field: "userId" },
  { name: "missing session", input: { tenantId: "t", userId: "u", message: "hi" }, field: "sessionId" },
  { name: "tenant with /", input: { ...scope, tenantId: "a/b", message: "hi" }, field: "tenantId" },
  { name: "tenant with ..", input: { ...scope, tenantId: "..", message: "hi" }, field: "tenantId" },
  { name: "user with a lone surrogate", input: { ...scope, userId: "a\ud800b", message: "hi" }, field: "userId" },
  { name: "session with a control character", input: { ...scope, sessionId: "s\u0000", message: "hi" }, field: "sessionId" },
  { name: "a 1 MB prompt", input: { ...scope, message: "x".repeat(1024 * 1024) }, field: "message" },
  { name: "a message that is a number", input: { ...scope, message: 42 }, field: "message" },
  { name: "prompts that are not a list", input: { ...scope, prompts: "hi" }, field: "prompts" },
  { name: "an unknown field", input: { ...scope, message: "hi", extra: true }, field: "input" },
  { name: "a user id that is too long", input: { ...scope, userId: "u".repeat(200), message: "hi" }, field: "userId" },
  { name: "a file reference without its id", input: { ...scope, message: "hi", files: [{ type: "image", transferMethod: "remote_url", belongsTo: "user" }] }, field: "files.0" },
];

describe("bad input", () => {
  it.each(cases)("rejects $name with an error naming the field, storing nothing", async ({ input, field }) => {
    const { graph, store, checkpointer } = await memoryGraphForTest();
    // Untyped callers (JavaScript, JSON from elsewhere) get the run-time check.
    const error = await graph.runTurn(input as TurnInput).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryGraphError);
    expect((error as MemoryGraphError).kind).toBe("user");
    expect((error as MemoryGraphError).field ?? "").toContain(field === "input" ? "" : field);
    expect((error as MemoryGraphError).message.length).toBeGreaterThan(5);
    expect(await store.listNamespaces({ limit: 10 })).toEqual([]);
    const checkpoints = [];
    for await (const c of checkpointer.list({})) checkpoints.push(c);
    expect(checkpoints).toEqual([]);
    await graph.close();
  });

  it("rejects a regeneration whose parent is not in the session", async () => {
    const { graph } = await memoryGraphForTest();
    await graph.runTurn({ ...scope, message: "hello" });
    const before = await graph.sessionState(scope);
    const error = await graph.runTurn({ ...scope, parentMessageId: "nope", message: "again" }).catch((e: unknown) => e);
    expect((error as MemoryGraphError).code).toBe("UNKNOWN_PARENT");
    expect((error as MemoryGraphError).field).toBe("parentMessageId");
    expect(await graph.sessionState(scope)).toEqual(before);
    await graph.close();
  });
});
