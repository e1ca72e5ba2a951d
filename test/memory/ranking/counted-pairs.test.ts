import { describe, expect, it } from "vitest";
import { countedPairs, Names } from "../../../src/memory/ranking/doc-table.js";

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
