import { describe, expect, it } from "vitest";
import { countedPairs, DocTable } from "../../../src/memory/ranking/doc-table.js";
import { Names } from "../../../src/memory/ranking/sorted-terms.js";

/** The [term, tf] pairs of one document, by term. */
function counts(terms: readonly string[], names: Names): Map<string, number> {
  const { pairs, n } = countedPairs(terms, names);
  const out = new Map<string, number>();
  const byId = new Map(terms.map((term) => [names.intern(term), term]));
  for (let i = 0; i < n; i += 1) out.set(byId.get(pairs[2 * i] as number) as string, pairs[2 * i + 1] as number);
  return out;
}

describe("countedPairs", () => {
  it("counts a term once per document with its frequency, also when the term numbers outgrow the process's buffers mid-document", () => {
    const names = new Names();
    // Many new terms between the two "river"s: their numbers pass every buffer this process has grown so far.
    const fresh = Array.from({ length: 5000 }, (_, i) => `w${i}`);
    const got = counts(["river", ...fresh, "river", "bank", "bank"], names);
    expect(got.get("river")).toBe(2);
    expect(got.get("bank")).toBe(2);
    expect(got.size).toBe(fresh.length + 2);
    // The same document again reads alike.
    expect(counts(["river", ...fresh, "river", "bank", "bank"], names)).toEqual(got);
  });
});

describe("DocTable.ofSize", () => {
  it("allocates the room it is given with its columns, so appending within it keeps every array", () => {
    const docs = DocTable.ofSize(2, 3, { documents: 2, pairs: 5 });
    expect(docs.count).toBe(2);
    const arrays = [docs.pool, docs.starts, docs.lengths, docs.orders];
    const row = (n: number, order: number) => ({ pairs: Int32Array.from({ length: 2 * n }, (_, i) => (i % 2 === 0 ? i : 1)), n, length: n, group: 0, order, label: -1, speaker: -1, asks: false });
    docs.append(row(3, 10));
    docs.append(row(2, 11));
    expect([docs.pool, docs.starts, docs.lengths, docs.orders].every((array, i) => array === arrays[i])).toBe(true);
    // The two sized documents hold no pairs here: the appended ones' 3 + 2 pairs start at 0.
    expect([docs.count, docs.starts[4], docs.orders[3]]).toEqual([4, 10, 11]);
    // One more document than the room: the columns grow.
    docs.append(row(1, 12));
    expect(docs.lengths).not.toBe(arrays[2]);
  });
});
