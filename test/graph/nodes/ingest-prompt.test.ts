import { InMemoryStore } from "@langchain/langgraph";
import { HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { createIngestPromptNode } from "../../../src/graph/nodes/ingest-prompt.js";
import { namespaces } from "../../../src/memory/namespaces.js";
import { metaOf, textOf, withMeta } from "../../../src/messages/message-meta.js";
import { MemoryGraphError } from "../../../src/errors.js";
import { resolveLimits } from "../../../src/memory/limits.js";
import { HashedNgramEmbeddings } from "../../../src/memory/ranking/hash-embedder.js";
import { scope, stateOf, testDeps } from "../../support/deps.js";

describe("ingest_prompt", () => {
  it("turns prompt annotations into one HumanMessage and stores it in the transcript (no embeddings: here, once)", async () => {
    const store = new InMemoryStore();
    const node = createIngestPromptNode(testDeps());
    const update = await node(stateOf({ ...scope, prompts: [{ text: "first part" }, { text: "second part" }], messageId: "m1" }), { store });
    expect(update.status).toBe("OK");
    const added = update.messages as HumanMessage[];
    expect(added).toHaveLength(1);
    expect(textOf(added[0]!)).toBe("first part\n\nsecond part");
    expect(added[0]?.id).toBe("m1");
    expect(metaOf(added[0]!).createdAt).toBe("2026-11-01T10:00:00.000Z");
    const stored = await store.get(namespaces.transcript(scope), "m1");
    expect(stored?.value).toMatchObject({ id: "m1", role: "user", text: "first part\n\nsecond part", parentId: null });
    expect(update.turn).toMatchObject({ messageId: "m1", regenerated: false, sessionExpired: false });
  });

  it("answers SKIP for a whitespace-only prompt and stores nothing", async () => {
    const store = new InMemoryStore();
    const update = await createIngestPromptNode(testDeps())(stateOf({ ...scope, message: "  \n " }), { store });
    expect(update.status).toBe("SKIP");
    expect(update.messages).toBeUndefined();
    expect(await store.search([scope.tenantId], { limit: 5 })).toEqual([]);
  });

  it("links the new message to the last one of the session", async () => {
    const store = new InMemoryStore();
    const previous = withMeta(new HumanMessage({ id: "p", content: "before" }), { parentId: null, createdAt: "2026-11-01T09:59:00.000Z" });
    const state = stateOf({
      ...scope,
      message: "after",
      messageId: "n",
      messages: [previous],
      session: { ...stateOf({}).session, lastActiveAt: "2026-11-01T09:59:00.000Z", lastMessageId: "p" },
    });
    const update = await createIngestPromptNode(testDeps())(state, { store });
    expect(metaOf((update.messages as HumanMessage[])[0]!).parentId).toBe("p");
  });

  it("checks the rules the graph's input schema leaves to it: a prompt over the limit is a user error, storing nothing", async () => {
    const store = new InMemoryStore();
    const node = createIngestPromptNode(testDeps({ limits: resolveLimits({ maxPromptChars: 10 }) }));
    const error = await node(stateOf({ ...scope, message: "far too long a prompt" }), { store }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryGraphError);
    expect(error).toMatchObject({ code: "PROMPT_TOO_LONG", field: "message" });
    const bad = await node(stateOf({ ...scope, message: "a\u0000" }), { store }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: "INVALID_TEXT", field: "message" });
    expect(await store.listNamespaces({})).toEqual([]);
  });

  it("starts a new window when the session is idle past its TTL", async () => {
    const store = new InMemoryStore();
    const old = withMeta(new HumanMessage({ id: "old", content: "long ago" }), { parentId: null, createdAt: "2026-11-01T08:00:00.000Z" });
    const state = stateOf({
      ...scope,
      message: "back again",
      messages: [old],
      session: { ...stateOf({}).session, lastActiveAt: "2026-11-01T08:00:00.000Z", lastMessageId: "old" },
    });
    const update = await createIngestPromptNode(testDeps())(state, { store });
    expect(update.turn?.sessionExpired).toBe(true);
    expect(update.trim).toMatchObject({ afterCount: 1 });
  });

  it("leaves the new message to call_model when there are embeddings (no embedding before the first token)", async () => {
    const store = new InMemoryStore();
    const node = createIngestPromptNode(testDeps({ embeddings: new HashedNgramEmbeddings() }));
    const update = await node(stateOf({ ...scope, message: "hello", messageId: "m2" }), { store });
    expect(update.turn).toMatchObject({ messageId: "m2" });
    expect(await store.get(namespaces.transcript(scope), "m2")).toBeNull();
  });
});
