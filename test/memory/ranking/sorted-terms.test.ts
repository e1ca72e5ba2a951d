import { compareCodePoints, encodeSortedTerms, SortedTerms } from "../../../src/memory/ranking/sorted-terms.js";

/** A restored index's terms (`SortedTerms`): found by binary search over UTF-8 bytes in code point order, made into strings when asked. */
const ALPHABET = ["a", "b", "z", "é", "ÿ", "東", "\uE000", "ｚ", "\uFFFD", "𝒜", "😀"];

function randomTerm(random: () => number): string {
  let term = "";
  for (let n = 1 + Math.floor(random() * 4); n > 0; n--) term += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return term;
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

const sortedOf = (terms: readonly string[]) => {
  const { bytes, lengths } = encodeSortedTerms(terms);
  const starts = new Int32Array(lengths.length + 1);
  lengths.forEach((length, i) => (starts[i + 1] = (starts[i] as number) + length));
  return SortedTerms.of(bytes, starts);
};

it("compareCodePoints orders as the strings' UTF-8 bytes do", () => {
  const random = seeded(7);
  for (let i = 0; i < 5_000; i++) {
    const [a, b] = [randomTerm(random), randomTerm(random)];
    expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
  }
  expect(compareCodePoints("ｚ", "𝒜")).toBeLessThan(0); // where `<` says the opposite
  expect("ｚ" < "𝒜").toBe(false);
});

it("finds every term it holds, and no other, and gives each back as the string it was", () => {
  const random = seeded(11);
  const terms = [...new Set(Array.from({ length: 400 }, () => randomTerm(random)))].sort(compareCodePoints);
  const sorted = sortedOf(terms);
  expect(sorted.count).toBe(terms.length);
  terms.forEach((term, id) => {
    expect(sorted.find(term)).toBe(id);
    expect(sorted.at(id)).toBe(term);
  });
  for (let i = 0; i < 400; i++) {
    const other = randomTerm(random) + "q";
    expect(sorted.find(other)).toBe(-1);
  }
});

it.each([
  ["repeated", ["a", "a"]],
  ["descending", ["b", "a"]],
  ["in UTF-16 order", ["𝒜", "ｚ"]],
])("refuses terms %s", (_what, terms) => {
  expect(() => sortedOf(terms)).toThrow(/distinct and ascending/);
});
