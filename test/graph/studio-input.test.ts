import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { getInputTypeSchema } from "@langchain/langgraph/zod/schema";
import { describe, expect, it } from "vitest";
import { graphDepsOf } from "../../src/app/create-memory-graph.js";
import { MemoryGraphError } from "../../src/errors.js";
import { compileGraph } from "../../src/graph/build-graph.js";
import { StudioTurnInput } from "../../src/graph/state/studio-input.js";

/** The graph as src/studio.ts compiles it (with a prompt limit of 100), on an in-memory checkpointer and store. */
const who = { tenantId: "t", userId: "u", sessionId: "s" };

function studioGraph() {
  const checkpointer = new MemorySaver();
  const deps = graphDepsOf({ chatModel: null });
  const app = compileGraph(deps, { checkpointer, store: new InMemoryStore() }, { studioInput: new StudioTurnInput(100) });
  return { app, checkpointer };
}

async function checkpoints(checkpointer: MemorySaver, threadId: string) {
  const saved = [];
  for await (const checkpoint of checkpointer.list({ configurable: { thread_id: threadId } })) saved.push(checkpoint);
  return saved;
}

describe("the Studio entry's input (StudioTurnInput)", () => {
  it("describes the turn input with its required fields and every field's description", () => {
    const schema = getInputTypeSchema(studioGraph().app) as { required?: string[]; additionalProperties?: boolean; properties: Record<string, { description?: string }> };
    expect(schema.required).toEqual(["tenantId", "userId", "sessionId"]);
    expect(schema.additionalProperties).toBe(false);
    expect(Object.entries(schema.properties).filter(([, field]) => !field.description)).toEqual([]);
  });

  it.each([
    { what: "a bad id", input: { ...who, userId: "a/b", message: "hi" }, code: "INVALID_INPUT", field: "userId" },
    { what: "the old nested shape", input: { input: { ...who, message: "hi" } }, code: "INVALID_INPUT", field: "tenantId" },
    { what: "an unknown field", input: { ...who, message: "hi", mesage: "typo" }, code: "INVALID_INPUT", field: "input" },
    { what: "a prompt over the limit", input: { ...who, message: "x".repeat(101) }, code: "PROMPT_TOO_LONG", field: "message" },
    { what: "a lone surrogate", input: { ...who, message: "a\ud800" }, code: "INVALID_TEXT", field: "message" },
  ])("$what: refused with $code on $field, the code and field leading the message, nothing saved", async ({ input, code, field }) => {
    const { app, checkpointer } = studioGraph();
    const error: unknown = await app.invoke(input as never, { configurable: { thread_id: "bad" } }).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(MemoryGraphError);
    expect(error).toMatchObject({ code, field, kind: "user", message: expect.stringMatching(new RegExp(`^${code}: ${field.replace(".", "\\.")}: `)) });
    expect((error as MemoryGraphError).cause).toBeInstanceOf(MemoryGraphError);
    expect(await checkpoints(checkpointer, "bad")).toEqual([]);
  });

  it("answers a good input, and an input error ingest_prompt finds in the store carries its code as well", async () => {
    const { app } = studioGraph();
    const config = { configurable: { thread_id: "good" } };
    const out = await app.invoke({ ...who, message: "My name is Anong" }, config);
    expect(out.status).toBe("OK");
    expect(out.input).toEqual({ ...who, message: "My name is Anong" });
    await expect(app.invoke({ ...who, message: "again", parentMessageId: "nope" }, config)).rejects.toMatchObject({
      code: "UNKNOWN_PARENT",
      field: "parentMessageId",
      message: "UNKNOWN_PARENT: parentMessageId: no message nope in this session",
    });
    // A message that already leads with its code is not prefixed twice.
    await expect(app.invoke({ ...who, userId: "mallory", message: "hi" }, config)).rejects.toMatchObject({
      code: "THREAD_SCOPE_MISMATCH",
      message: expect.stringMatching(/^THREAD_SCOPE_MISMATCH: this thread/),
    });
  });
});
