import { MemorySaver, type BaseStore } from "@langchain/langgraph";
import { createMemoryGraph } from "../../src/index.js";
import type { EntityRecord } from "../../src/memory/entities/graph-records.js";
import { loadAllNodes, MAX_TAIL, type NodeTail } from "../../src/memory/entities/graph-store.js";
import { namespaces } from "../../src/memory/namespaces.js";

/**
 * How a node is written when a message only adds sources to it (see graph-store.ts): its record is
 * left as it is (not rewritten: on Postgres every rewrite leaves a dead ~10 KB version) and the
 * sources go to its tail; past `MAX_TAIL` the record is written again with them. Every reader
 * sees one node either way, and the graph's rules hold for a source kept in a tail.
 */

const user = { tenantId: "graph", userId: "tails" };
const first = { sessionId: "s1", startedAt: "2024-01-05T10:00:00.000Z", messages: [{ id: "m1", role: "user" as const, text: "My sister Priya just moved to Pune for her new job." }] };
/** A message naming Priya again as "my sister": a mention of her, a source of the edges between her and "me", of the alias's edge. */
const again = (i: number) => ({
  sessionId: `t${i}`,
  startedAt: `2024-02-${String(i).padStart(2, "0")}T10:00:00.000Z`,
  messages: [{ id: `q${i}`, role: "user" as const, text: `My sister Priya called again on day ${i}.` }],
});

export function describeNodeTailContract(name: string, make: () => BaseStore): void {
  it(`on ${name}, a message that only adds sources to known nodes writes their tails, not their records; past MAX_TAIL the record takes them`, async () => {
    const store = make();
    const memory = await createMemoryGraph({ persistence: { store, checkpointer: new MemorySaver() }, embeddings: null, chatModel: null, logger: false });
    const record = () => store.get(namespaces.entities(user), "priya");
    const tail = async () => (await store.get(namespaces.entityTails(user), "priya"))?.value as NodeTail | undefined;
    const priya = async () => (await loadAllNodes(store, user)).get("priya") as EntityRecord;
    try {
      await memory.importSessions(user, [first]);
      const written = await record();
      // Each message adds two sources to Priya's node (a mention, a source of her "~sister" edge): the tail holds MAX_TAIL / 2 messages.
      const held = MAX_TAIL / 2;
      for (let i = 1; i <= held; i++) await memory.importSessions(user, [again(i)]);
      const kept = await record();
      expect(kept?.value).toEqual(written?.value);
      expect(kept?.updatedAt.valueOf()).toBe(written?.updatedAt.valueOf());
      expect((await tail())?.mentions).toHaveLength(held);
      const node = await priya();
      expect(node.mentions.at(-1)).toEqual([`t${held}`, `q${held}`]);
      expect(node.relations.find((r) => r.type === "~sister")?.sources).toHaveLength(held + 1);
      expect((await loadAllNodes(store, user)).get("me")?.relations.find((r) => r.type === "sister")?.sources).toHaveLength(held + 1);

      // One more: the tail would pass MAX_TAIL, so the record is written with every source and the tail emptied.
      await memory.importSessions(user, [again(held + 1)]);
      expect((await record())?.value).toEqual({ ...node, mentions: [...node.mentions, [`t${held + 1}`, `q${held + 1}`]], relations: expect.any(Array), updatedAt: expect.any(String) });
      expect(await tail()).toMatchObject({ mentions: [], edgeSources: [] });

      // A source kept only in a tail follows the graph's rules: a deleted message's mention goes, and an export carries it.
      await memory.importSessions(user, [again(held + 2)]);
      expect((await tail())?.mentions).toEqual([[`t${held + 2}`, `q${held + 2}`]]);
      expect((await memory.exportUser(user)).entities?.find((n) => n.key === "priya")?.mentions.at(-1)).toEqual({ sessionId: `t${held + 2}`, messageId: `q${held + 2}` });
      await memory.deleteMessage({ ...user, sessionId: `t${held + 2}` }, `q${held + 2}`);
      expect((await priya()).mentions.some(([, id]) => id === `q${held + 2}`)).toBe(false);
      await memory.importSessions(user, [again(held + 3)]);
      expect((await tail())?.mentions).toHaveLength(1);
      // Forgetting the entity takes its tail with it.
      await memory.deleteEntity(user, "Priya");
      expect(await tail()).toBeUndefined();
      expect(await record()).toBeNull();
    } finally {
      await memory.close();
    }
  });
}
