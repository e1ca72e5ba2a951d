/** Deterministic synthetic text for load benchmarks. */

/** A seeded PRNG (mulberry32) returning numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ["ka", "lo", "mi", "ren", "tas", "vo", "quin", "bel", "dor", "fi", "gan", "hul", "jet", "mar", "nos", "pel", "rud", "sil", "tor", "zem"];
const COMMON = ["the", "i", "you", "was", "and", "to", "it", "we", "really", "today", "going", "think", "about", "new", "time"];

/** A vocabulary of 5,000 made-up words; word frequency follows a Zipf-like curve when drawn below. */
const VOCABULARY = Array.from({ length: 5000 }, (_, i) => {
  let word = "";
  let n = i + 1;
  while (n > 0) {
    word += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  }
  return word;
});

/** A sentence of `length` words: common words and vocabulary words drawn with a Zipf-like skew. */
export function syntheticSentence(random: () => number, length: number): string {
  const words: string[] = [];
  for (let i = 0; i < length; i++) {
    if (random() < 0.35) words.push(COMMON[Math.floor(random() * COMMON.length)] ?? "the");
    else words.push(VOCABULARY[Math.floor(VOCABULARY.length * random() ** 3)] ?? "ka");
  }
  return `${words.join(" ")}.`;
}
