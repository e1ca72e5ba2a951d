import { AIMessage, HumanMessage, RemoveMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { isPinned } from "../../../src/messages/message-meta.js";
import { mergeNodeMemory, type NodeMemory } from "../../../src/graph/reducers.js";
import { conversation, limitsArb, messagesArb } from "./fixtures.js";

const ids = (messages: readonly BaseMessage[] | undefined) => (messages ?? []).map((m) => m.id);

describe("mergeNodeMemory", () => {
  it.each([
    { name: "appends to an existing node", node: "call_model", before: 2, after: ["m0", "m1", "n"] },
    { name: "starts a new node empty", node: "summarize", before: 0, after: ["n"] },
  ])("$name", ({ node, after }) => {
    const current: NodeMemory = Object.freeze({ call_model: Object.freeze(conversation(2)) as BaseMessage[] });
    const next = mergeNodeMemory({ maxMessages: 10, maxChars: 1000 })(current, { [node]: new HumanMessage({ id: "n", content: "hi" }) });
    expect(ids(next[node])).toEqual(after);
    expect(next).not.toBe(current);
    expect(ids(current["call_model"])).toEqual(["m0", "m1"]);
  });

  it("leaves nodes not named in the update untouched (same array)", () => {
    const other = Object.freeze(conversation(3)) as BaseMessage[];
    const current: NodeMemory = Object.freeze({ call_model: conversation(2), classify_event: other });
    const next = mergeNodeMemory({ maxMessages: 10, maxChars: 1000 })(current, { call_model: [new RemoveMessage({ id: "m0" })] });
    expect(next["classify_event"]).toBe(other);
    expect(ids(next["call_model"])).toEqual(["m1"]);
  });

  it("trims each node to the limits", () => {
    const next = mergeNodeMemory({ maxMessages: 2, maxChars: 1000 })({ a: conversation(2) }, { a: new AIMessage({ id: "x", content: "y" }) });
    expect(ids(next["a"])).toEqual(["m1", "x"]);
  });

  it("stores a node id of __proto__ as data, not as the prototype", () => {
    const update = JSON.parse('{"__proto__": [{"type": "human", "content": "hi", "id": "p"}]}') as Record<string, BaseMessage[]>;
    const next = mergeNodeMemory({ maxMessages: 10, maxChars: 1000 })({}, update);
    expect(Object.getPrototypeOf(next)).toBe(Object.prototype);
    expect(Object.keys(next)).toEqual(["__proto__"]);
  });

  it("bounds every node and keeps other nodes (property)", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom("a", "b", "c"), messagesArb), fc.constantFrom("a", "b", "c", "d"), messagesArb, limitsArb, (memory, node, update, limits) => {
        const current = Object.freeze({ ...memory });
        const renamed = update.map((m) => new HumanMessage({ id: `u-${m.id ?? ""}`, content: m.content }));
        const next = mergeNodeMemory(limits)(current, { [node]: renamed });
        for (const key of Object.keys(current)) if (key !== node) expect(next[key]).toBe(current[key]);
        expect(Object.keys(next).sort()).toEqual([...new Set([...Object.keys(current), node])].sort());
        const pinnedCount = (current[node] ?? []).filter(isPinned).length;
        expect(next[node]!.length).toBeLessThanOrEqual(Math.max(limits.maxMessages, pinnedCount + 1));
        if (renamed.length > 0) expect(next[node]!.at(-1)?.id).toBe(renamed.at(-1)?.id);
      }),
      { numRuns: 100 },
    );
  });
});
