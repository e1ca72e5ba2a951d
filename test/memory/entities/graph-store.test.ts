import fc from "fast-check";
import { MAX_EDGE_SOURCES, MAX_MENTIONS, type EntityRecord, type SourceRef } from "../../../src/memory/entities/graph-records.js";
import { assembled, MAX_TAIL, nodeWrites, sourcesAdded, type NodeTail, type StoredNode } from "../../../src/memory/entities/graph-store.js";
import { namespaces } from "../../../src/memory/namespaces.js";

const user = { tenantId: "t", userId: "u" };
const start: EntityRecord = {
  key: "priya",
  name: "Priya",
  kind: "person",
  aliases: [],
  mentions: [["s0", "m0"]],
  relations: [
    { type: "lives_in", to: "pune", sources: [["s0", "m0"]], validFrom: "2024-01-01T00:00:00.000Z" },
    { type: "~sister", to: "me", sources: [["s0", "m0"]], validFrom: "2024-01-01T00:00:00.000Z" },
  ],
  updatedAt: "2024-01-01T00:00:00.000Z",
};

/** One change to a node: a new source (a mention, or a source of an edge), or something else (an alias, a source removed). */
type Step = { kind: "mention" } | { kind: "edge"; edge: 0 | 1 } | { kind: "alias" } | { kind: "drop" };
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.constant({ kind: "mention" as const }), weight: 6 },
  { arbitrary: fc.constantFrom(0 as const, 1 as const).map((edge) => ({ kind: "edge" as const, edge })), weight: 4 },
  { arbitrary: fc.constant({ kind: "alias" as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: "drop" as const }), weight: 1 },
);

/** `node` after `change` (as the graph's rules make it: new sources last, the newest kept). */
function changed(node: EntityRecord, change: Step, i: number): EntityRecord {
  const ref: SourceRef = [`s${i % 3}`, `m${i}`];
  const at = `2024-01-01T00:00:${String(i % 60).padStart(2, "0")}.${String(i).padStart(3, "0")}Z`;
  const relations = node.relations.map((r) => ({ ...r, sources: [...r.sources] }));
  if (change.kind === "mention") return { ...node, mentions: [...node.mentions, ref].slice(-MAX_MENTIONS), updatedAt: at };
  if (change.kind === "edge") {
    const edge = relations[change.edge]!;
    edge.sources = [...edge.sources, ref].slice(-MAX_EDGE_SOURCES);
    return { ...node, relations, updatedAt: at };
  }
  if (change.kind === "alias") return { ...node, aliases: [...node.aliases, `alias ${i}`], updatedAt: at };
  return { ...node, mentions: node.mentions.length > 1 ? node.mentions.slice(1) : node.mentions, relations, updatedAt: at };
}

/** The stored node after `writes` (puts and deletes of its record and its tail). */
function applied(stored: StoredNode, writes: ReturnType<typeof nodeWrites>): StoredNode {
  let { record, tail } = stored;
  for (const write of writes) {
    if (write.namespace.join("/") === namespaces.entities(user).join("/")) record = write.value as unknown as EntityRecord;
    else tail = write.value === null ? undefined : (write.value as unknown as NodeTail);
  }
  return tail ? { record, tail } : { record };
}

describe("a node's record and tail", () => {
  it("read back as the node written, whatever the changes; the tail never holds more than MAX_TAIL sources", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 100, maxLength: 500 }), (steps) => {
        let stored: StoredNode = { record: start };
        let node = start;
        steps.forEach((change, i) => {
          node = changed(node, change, i + 1);
          stored = applied(stored, nodeWrites(user, node.key, stored, node));
          expect(assembled(stored)).toEqual(node);
          expect((stored.tail?.mentions.length ?? 0) + (stored.tail?.edgeSources.length ?? 0)).toBeLessThanOrEqual(MAX_TAIL);
        });
      }),
      { numRuns: 40 },
    );
  });

  it.each<{ change: Step; writes: string[] }>([
    { change: { kind: "mention" }, writes: ["tail"] },
    { change: { kind: "edge", edge: 1 }, writes: ["tail"] },
    { change: { kind: "alias" }, writes: ["record"] },
    { change: { kind: "drop" }, writes: ["record"] },
  ])("a $change.kind change writes its $writes", ({ change, writes }) => {
    const stored = { record: { ...start, mentions: [...start.mentions, ["s0", "m00"] as SourceRef] } };
    const next = changed(stored.record, change, 7);
    const ops = nodeWrites(user, start.key, stored, next);
    expect(ops.map((op) => (op.namespace.at(-1) === "entities" ? "record" : "tail"))).toEqual(writes);
  });

  it("writes nothing for a node that reads as stored, and sees a removed source as no mere addition", () => {
    expect(nodeWrites(user, start.key, { record: start }, { ...start })).toEqual([]);
    expect(sourcesAdded(start, { ...start, mentions: [] })).toBeNull();
  });
});
