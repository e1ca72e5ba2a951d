/**
 * A compact English stemmer in the manner of Porter (1980), with the `-li` rule of its later
 * revision so that adverbs in "-ly" fold too. It maps inflected forms onto one stem
 * ("prices", "priced", "pricing" → "price"); stems are keys, not dictionary words.
 * Pure; only lower-case ASCII letters are touched, anything else is returned unchanged.
 */
export function stem(word: string): string {
  if (word.length <= 2 || !/^[a-z]+$/.test(word)) return word;
  let w = step1a(word);
  w = step1b(w);
  w = step1c(w);
  w = step2(w);
  w = step3(w);
  w = step4(w);
  return step5(w);
}

function isConsonant(w: string, i: number): boolean {
  const c = w[i];
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return false;
  if (c === "y") return i === 0 || !isConsonant(w, i - 1);
  return true;
}

/** The number of vowel-consonant sequences in `w` (Porter's m). */
function measure(w: string): number {
  let m = 0;
  let i = 0;
  while (i < w.length && isConsonant(w, i)) i++;
  while (i < w.length) {
    while (i < w.length && !isConsonant(w, i)) i++;
    if (i >= w.length) break;
    while (i < w.length && isConsonant(w, i)) i++;
    m++;
  }
  return m;
}

function hasVowel(w: string): boolean {
  for (let i = 0; i < w.length; i++) if (!isConsonant(w, i)) return true;
  return false;
}

function endsDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1);
}

/** Ends consonant-vowel-consonant, the last not w, x or y ("hop", not "snow"). */
function endsCvc(w: string): boolean {
  const n = w.length;
  if (n < 3) return false;
  const last = w[n - 1] ?? "";
  return isConsonant(w, n - 3) && !isConsonant(w, n - 2) && isConsonant(w, n - 1) && !"wxy".includes(last);
}

/** Replaces the first matching suffix whose remaining stem satisfies `ok`; unchanged otherwise. */
function replaceSuffix(w: string, rules: readonly (readonly [string, string])[], ok: (stemPart: string) => boolean): string {
  for (const [suffix, replacement] of rules) {
    if (!w.endsWith(suffix)) continue;
    const base = w.slice(0, w.length - suffix.length);
    return ok(base) ? base + replacement : w;
  }
  return w;
}

function step1a(w: string): string {
  if (w.endsWith("sses")) return w.slice(0, -2);
  if (w.endsWith("ies")) return w.slice(0, -2);
  if (w.endsWith("ss") || w.endsWith("us") || w.endsWith("is")) return w;
  if (w.endsWith("s")) return w.slice(0, -1);
  return w;
}

function step1b(w: string): string {
  if (w.endsWith("eed")) return measure(w.slice(0, -3)) > 0 ? w.slice(0, -1) : w;
  let base: string | undefined;
  if (w.endsWith("ed") && hasVowel(w.slice(0, -2))) base = w.slice(0, -2);
  else if (w.endsWith("ing") && hasVowel(w.slice(0, -3))) base = w.slice(0, -3);
  if (base === undefined) return w;
  if (base.endsWith("at") || base.endsWith("bl") || base.endsWith("iz")) return `${base}e`;
  if (endsDoubleConsonant(base) && !/[lsz]$/.test(base)) return base.slice(0, -1);
  if (measure(base) === 1 && endsCvc(base)) return `${base}e`;
  return base;
}

function step1c(w: string): string {
  return w.endsWith("y") && hasVowel(w.slice(0, -1)) ? `${w.slice(0, -1)}i` : w;
}

const STEP2: readonly (readonly [string, string])[] = [
  ["ational", "ate"], ["tional", "tion"], ["enci", "ence"], ["anci", "ance"], ["izer", "ize"],
  ["bli", "ble"], ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"],
  ["ization", "ize"], ["ation", "ate"], ["ator", "ate"], ["alism", "al"], ["iveness", "ive"],
  ["fulness", "ful"], ["ousness", "ous"], ["aliti", "al"], ["iviti", "ive"], ["biliti", "ble"],
  ["logi", "log"],
];

function step2(w: string): string {
  const replaced = replaceSuffix(w, STEP2, (base) => measure(base) > 0);
  if (replaced !== w) return replaced;
  // The revision's "-li" rule: "quickly" → "quick", only after a letter that may precede "-ly".
  if (w.endsWith("li")) {
    const base = w.slice(0, -2);
    if (/[cdeghkmnrt]$/.test(base) && measure(base) > 0) return base;
  }
  return w;
}

const STEP3: readonly (readonly [string, string])[] = [
  ["icate", "ic"], ["ative", ""], ["alize", "al"], ["iciti", "ic"], ["ical", "ic"], ["ful", ""], ["ness", ""],
];

function step3(w: string): string {
  return replaceSuffix(w, STEP3, (base) => measure(base) > 0);
}

const STEP4 = [
  "ement", "ance", "ence", "able", "ible", "ment", "ant", "ent", "ism", "ate", "iti", "ous", "ive", "ize",
  "ion", "al", "er", "ic", "ou",
].sort((a, b) => b.length - a.length);

function step4(w: string): string {
  for (const suffix of STEP4) {
    if (!w.endsWith(suffix)) continue;
    const base = w.slice(0, w.length - suffix.length);
    if (measure(base) <= 1) return w;
    if (suffix === "ion" && !/[st]$/.test(base)) return w;
    return base;
  }
  return w;
}

function step5(w: string): string {
  let out = w;
  if (out.endsWith("e")) {
    const base = out.slice(0, -1);
    const m = measure(base);
    if (m > 1 || (m === 1 && !endsCvc(base))) out = base;
  }
  if (out.endsWith("ll") && measure(out) > 1) out = out.slice(0, -1);
  return out;
}
