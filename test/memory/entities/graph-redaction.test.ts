import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { createMemoryGraph } from "../../../src/index.js";
import { entityGraphWrites } from "../../../src/memory/entities/entity-graph.js";
import type { EntityRecord } from "../../../src/memory/entities/graph-records.js";
import { namespaces } from "../../../src/memory/namespaces.js";
import { REDACTED, redactionWrites } from "../../../src/memory/redaction.js";

const user = { tenantId: "t", userId: "u" };
const message = (id: string, text: string) => ({ id, role: "user" as const, text, parentId: null, sessionId: "s1", createdAt: `2024-01-0${id.slice(1)}T00:00:00.000Z` });

it("a deleted fact's value leaves the entity graph: the node it names goes, other nodes no longer point at it by name", async () => {
  const store = new InMemoryStore();
  await store.batch(await entityGraphWrites(store, user, [message("m1", "My sister Priya moved to Pune."), message("m2", "I met Arjun today.")]));
  const { writes } = await redactionWrites(store, user, ["Pune"], new Set(["m1"]));
  await store.batch(writes);
  const nodes = new Map((await store.search(namespaces.entities(user), { limit: 100 })).map((item) => [item.key, item.value as EntityRecord]));
  expect(nodes.has("pune")).toBe(false);
  expect(nodes.get("priya")?.relations.find((r) => r.type === "lives_in")?.to).toBe(REDACTED);
  expect(nodes.has("arjun")).toBe(true);
  expect(JSON.stringify([...nodes.values()]).toLowerCase()).not.toContain("pune");
});

it("a graph a deleted value was cut out of goes through export → forget → import as it is", async () => {
  const store = new InMemoryStore();
  const memory = await createMemoryGraph({ persistence: { store, checkpointer: new MemorySaver() }, embeddings: null, chatModel: null, logger: false });
  try {
    await memory.importSessions(user, [{ sessionId: "s1", startedAt: "2024-01-01T00:00:00.000Z", messages: [{ id: "m1", role: "user", text: "My sister Priya moved to Pune." }] }]);
    const { writes } = await redactionWrites(store, user, ["Pune"], new Set(["m1"]));
    await store.batch(writes);
    const nodes = async () => new Map((await store.search(namespaces.entities(user), { limit: 100 })).map((item) => [item.key, item.value as EntityRecord]));
    const before = await nodes();
    expect(before.get("priya")?.relations.find((r) => r.type === "lives_in")?.to).toBe(REDACTED);
    const exported = await memory.exportUser(user);
    await memory.forgetUser(user);
    await memory.importSessions(user, exported);
    expect(await nodes()).toEqual(before);
  } finally {
    await memory.close();
  }
});

it("a node the deleted value names goes with its tail (the sources added since it was written)", async () => {
  const store = new InMemoryStore();
  await store.batch(await entityGraphWrites(store, user, [message("m1", "My sister Priya moved to Pune.")]));
  await store.batch(await entityGraphWrites(store, user, [message("m2", "My sister Priya called again.")]));
  expect((await store.get(namespaces.entityTails(user), "priya"))?.value).toMatchObject({ mentions: [["s1", "m2"]] });
  const { writes, counts } = await redactionWrites(store, user, ["Priya"], new Set(["m1"]));
  await store.batch(writes);
  expect(await store.get(namespaces.entities(user), "priya")).toBeNull();
  expect(await store.get(namespaces.entityTails(user), "priya")).toBeNull();
  // The tail is no record of its own: the node is counted once.
  expect(counts.records).toBe(writes.filter((write) => "namespace" in write && write.namespace.at(-1) !== "entity-tails").length);
});
