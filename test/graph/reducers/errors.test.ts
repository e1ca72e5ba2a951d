import fc from "fast-check";
import { appendErrors, MAX_KEPT_ERRORS, type NodeError } from "../../../src/graph/reducers.js";

const err = (n: number): NodeError => Object.freeze({ node: "call_model", code: `E${n}`, message: `failure ${n}` });

describe("appendErrors", () => {
  it.each([
    { current: [], update: err(1), codes: ["E1"] },
    { current: [err(1)], update: [err(2), err(3)], codes: ["E1", "E2", "E3"] },
    { current: [err(1)], update: [], codes: ["E1"] },
  ])("gives $codes", ({ current, update, codes }) => {
    const frozen = Object.freeze([...current]) as NodeError[];
    const next = appendErrors(frozen, update);
    expect(next.map((e) => e.code)).toEqual(codes);
    expect(next).not.toBe(frozen);
    expect(frozen).toHaveLength(current.length);
  });

  it("only appends, in order, keeping the newest MAX_KEPT_ERRORS (property)", () => {
    const errorArb = fc.record({ node: fc.string(), code: fc.string(), message: fc.string() });
    fc.assert(
      fc.property(fc.array(errorArb, { maxLength: 150 }), fc.oneof(errorArb, fc.array(errorArb, { maxLength: 30 })), (current, update) => {
        const next = appendErrors(Object.freeze([...current]) as NodeError[], update);
        const all = [...current, ...(Array.isArray(update) ? update : [update])];
        expect(next).toHaveLength(Math.min(all.length, MAX_KEPT_ERRORS));
        expect(next).toEqual(all.slice(all.length - next.length));
      }),
      { numRuns: 200 },
    );
  });
});
