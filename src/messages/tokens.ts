/**
 * Tokens per code point for each class of script, after what BPE tokenizers of the GPT-4 /
 * GPT-4o family do on average:
 * - Han, Kana, Hangul and CJK symbols/full-width forms: about one token per character.
 * - Thai, Lao, Khmer, Myanmar and the Indic scripts (written without spaces between words or
 *   with many combining marks): about one token per two characters.
 * - Everything else (Latin, Cyrillic, Greek, digits, punctuation, spaces): about four
 *   characters per token.
 * - Characters outside the Basic Multilingual Plane (emoji, rare ideographs): one token each.
 */
const WEIGHT = { dense: 1, complex: 0.5, plain: 0.25 } as const;

function weightOf(codePoint: number): number {
  if (codePoint > 0xffff) return WEIGHT.dense;
  if (codePoint < 0x0900) return WEIGHT.plain;
  // Devanagari … Sinhala, Thai, Lao, Tibetan, Myanmar.
  if (codePoint <= 0x109f) return WEIGHT.complex;
  // Hangul Jamo.
  if (codePoint >= 0x1100 && codePoint <= 0x11ff) return WEIGHT.dense;
  // Khmer.
  if (codePoint >= 0x1780 && codePoint <= 0x17ff) return WEIGHT.complex;
  // CJK radicals, punctuation, Kana, Bopomofo, Hangul compatibility, CJK ideographs, Yi.
  if (codePoint >= 0x2e80 && codePoint <= 0xa4cf) return WEIGHT.dense;
  // Hangul syllables.
  if (codePoint >= 0xac00 && codePoint <= 0xd7af) return WEIGHT.dense;
  // CJK compatibility ideographs.
  if (codePoint >= 0xf900 && codePoint <= 0xfaff) return WEIGHT.dense;
  // Full-width and half-width forms.
  if (codePoint >= 0xff00 && codePoint <= 0xffef) return WEIGHT.dense;
  return WEIGHT.plain;
}

/**
 * An estimate of how many tokens `text` costs a chat model, with no tokenizer and no network.
 * Each code point adds a fixed weight by script (see {@link WEIGHT}: ~4 Latin characters per
 * token, ~2 Thai characters per token, ~1 CJK character per token) and the sum is rounded up.
 * Invariants: "" → 0; any non-empty text → ≥ 1; monotone: appending text never lowers the
 * estimate. It is an estimate for budgeting, not a count to bill by.
 */
export function estimateTokens(text: string): number {
  let total = 0;
  for (const char of text) total += weightOf(char.codePointAt(0) ?? 0);
  return Math.ceil(total);
}
