import fc from "fast-check";
import { extractThread, type ThreadNode } from "../../src/reducers/thread.js";

const node = (id: string, parentId: string | null, role: "human" | "ai") => Object.freeze({ id, parentId, role });

// A(h) → A'(ai) → B(h) → B'(ai); A'' is a regenerated answer to A, and C follows it.
const A = node("A", null, "human");
const A1 = node("A'", "A", "ai");
const B = node("B", "A'", "human");
const B1 = node("B'", "B", "ai");
const A2 = node("A''", "A", "ai");
const C = node("C", "A''", "human");
const all = Object.freeze([A, A1, B, B1, A2, C]);

describe("extractThread", () => {
  it.each([
    { leaf: "C", path: ["A", "A''", "C"] },
    { leaf: "B'", path: ["A", "A'", "B", "B'"] },
    { leaf: "A''", path: ["A", "A''"] },
    { leaf: "A", path: ["A"] },
    { leaf: "missing", path: [] },
  ])("leaf $leaf → $path", ({ leaf, path }) => {
    expect(extractThread(all, leaf).map((m) => m.id)).toEqual(path);
  });

  it("returns the messages themselves, typed as given", () => {
    const thread = extractThread(all, "C");
    expect(thread[0]).toBe(A);
    expect(thread.map((m) => m.role)).toEqual(["human", "ai", "human"]);
  });

  it.each([
    { name: "a parent missing from the list", nodes: [node("x", "gone", "ai"), node("y", "x", "human")], leaf: "y", path: ["x", "y"] },
    { name: "a two-node cycle", nodes: [node("p", "q", "human"), node("q", "p", "ai")], leaf: "q", path: ["p", "q"] },
    { name: "a self-loop", nodes: [node("s", "s", "human")], leaf: "s", path: ["s"] },
  ])("stops at $name", ({ nodes, leaf, path }) => {
    expect(extractThread(nodes, leaf).map((m) => m.id)).toEqual(path);
  });

  it("ends on any parent graph, with each step the parent of the next (property)", () => {
    const idArb = fc.constantFrom("a", "b", "c", "d", "e", "f");
    const nodesArb = fc.uniqueArray(fc.record({ id: idArb, parentId: fc.option(idArb, { nil: null }) }), { selector: (n) => n.id });
    fc.assert(
      fc.property(nodesArb, idArb, (nodes: ThreadNode[], leaf) => {
        const thread = extractThread(Object.freeze([...nodes]), leaf);
        expect(thread.length).toBeLessThanOrEqual(nodes.length);
        expect(new Set(thread.map((n) => n.id)).size).toBe(thread.length);
        if (nodes.some((n) => n.id === leaf)) expect(thread.at(-1)?.id).toBe(leaf);
        else expect(thread).toEqual([]);
        for (let i = 1; i < thread.length; i += 1) expect(thread[i]!.parentId).toBe(thread[i - 1]!.id);
      }),
      { numRuns: 200 },
    );
  });
});
