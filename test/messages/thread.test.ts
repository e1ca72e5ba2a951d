import fc from "fast-check";
import { extractThread, type ThreadNode } from "../../src/messages/thread.js";

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

  it("stops at a parent missing from the list", () => {
    expect(extractThread([node("x", "gone", "ai"), node("y", "x", "human")], "y").map((m) => m.id)).toEqual(["x", "y"]);
  });

  it.each([
    { name: "a two-node cycle", nodes: [node("r", null, "human"), node("p", "q", "human"), node("q", "p", "ai")], leaf: "q" },
    { name: "a self-loop", nodes: [node("s", "s", "human")], leaf: "s" },
  ])("refuses $name with THREAD_CYCLE instead of dropping history", ({ nodes, leaf }) => {
    expect(() => extractThread(nodes, leaf)).toThrow(expect.objectContaining({ code: "THREAD_CYCLE", kind: "system" }));
  });

  it("ends on any parent graph: a chain with each step the parent of the next, or THREAD_CYCLE (property)", () => {
    const idArb = fc.constantFrom("a", "b", "c", "d", "e", "f");
    const nodesArb = fc.uniqueArray(fc.record({ id: idArb, parentId: fc.option(idArb, { nil: null }) }), { selector: (n) => n.id });
    fc.assert(
      fc.property(nodesArb, idArb, (nodes: ThreadNode[], leaf) => {
        let thread: ThreadNode[];
        try {
          thread = extractThread(Object.freeze([...nodes]), leaf);
        } catch (error) {
          expect(error).toMatchObject({ code: "THREAD_CYCLE" });
          expect(hasCycleFrom(nodes, leaf)).toBe(true);
          return;
        }
        expect(hasCycleFrom(nodes, leaf)).toBe(false);
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

/** True when following parents from `leaf` comes back to a node already visited (a slow, plain check). */
function hasCycleFrom(nodes: readonly ThreadNode[], leaf: string): boolean {
  const visited: string[] = [];
  let current = nodes.find((n) => n.id === leaf);
  while (current) {
    if (visited.includes(current.id)) return true;
    visited.push(current.id);
    const parentId = current.parentId;
    current = parentId === null ? undefined : nodes.find((n) => n.id === parentId);
  }
  return false;
}
