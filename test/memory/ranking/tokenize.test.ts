import fc from "fast-check";
import { stem, termFrequencies, tokenize } from "../../../src/memory/ranking/index.js";
import { MAX_RANKED_CHARS, rankedPart, SEGMENTER_WINDOW, wordsOf } from "../../../src/memory/ranking/tokenize.js";

describe("tokenize", () => {
  it("lower-cases, drops stop words and stems English", () => {
    expect(tokenize("The PRICES were priced by the Pricing team")).toEqual(["price", "price", "price", "team"]);
  });

  it("segments Thai, which has no spaces, and drops Thai particles", () => {
    const tokens = tokenize("ราคาสินค้านี้เท่าไหร่ครับ");
    expect(tokens).toContain("ราคา");
    expect(tokens).toContain("สินค้า");
    expect(tokens).not.toContain("ครับ");
    expect(tokens).not.toContain("นี้");
  });

  it("keeps numbers, without thousands separators", () => {
    expect(tokenize("order 1,250 costs 3.5 dollars")).toEqual(["order", "1250", "cost", "3.5", "dollar"]);
  });

  it("passes romanised Hindi words through", () => {
    expect(tokenize("kitna hai bhai")).toEqual(["kitna", "hai", "bhai"]);
  });

  it("NFKC-normalises full-width letters", () => {
    expect(tokenize("Ｒｅｆｕｎｄ")).toEqual(["refund"]);
  });

  it("drops apostrophes and lone letters", () => {
    expect(tokenize("I can't find my e-mail")).toEqual(["cant", "find", "mail"]);
  });

  it("returns nothing for punctuation and stop words only", () => {
    expect(tokenize("?! the and ... นะ ครับ")).toEqual([]);
  });

  it("is total and never yields empty or upper-case terms", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        for (const token of tokenize(text)) {
          expect(token).not.toBe("");
          expect(token).toBe(token.toLowerCase());
          expect(/\s/.test(token)).toBe(false);
        }
      }),
    );
  });
});

// Mixed-script texts with the tokens tokenize gave when it ran Intl.Segmenter over the whole text.
describe("tokenize on mixed scripts (the same tokens as segmenting the whole text)", () => {
  it.each([
    ["Please check the ราคาสินค้า for my order, thanks ครับ", ["check", "ราคา", "สินค้า", "order", "thank"]],
    ["I booked a hotelที่เชียงใหม่ for December", ["book", "hotelที่", "เชียงใหม่", "decemb"]],
    ["東京の天気は晴れです。I'll fly to Tokyo next week.", ["東京", "の", "天気", "は", "晴れ", "です", "ill", "fly", "tokyo", "next", "week"]],
    ["我想退款，订单号是 4512。", ["我想", "退款", "订单", "号", "是", "4512"]],
    ["मेरा ऑर्डर कब आएगा? It was due on Monday.", ["मेरा", "ऑर्डर", "कब", "आएगा", "due", "mondai"]],
    ["Great service 👍🏽 but the app 😀 crashes; refund please 🇹🇭", ["great", "servic", "app", "crash", "refund"]],
    ["The café’s crème brûlée costs €12,50 — naïve pricing!", ["cafés", "crème", "brûlée", "cost", "1250", "naïve", "price"]],
    ["한국어 문장 and ສະບາຍດີ and ខ្មែរ and မြန်မာ", ["한국어", "문장", "ສະບາຍດີ", "ខ្មែរ", "မြန်မာ"]],
    ["Email me at ann.lee@example.com or see x.com/help_center", ["email", "ann.lee", "example.com", "see", "x.com", "help_center"]],
    ["مرحبا، أريد استرداد المبلغ ١٢٣ please", ["مرحبا", "أريد", "استرداد", "المبلغ", "١٢٣"]],
  ])("%s", (text, tokens) => {
    expect(tokenize(text)).toEqual(tokens);
  });
});

const segmenter = new Intl.Segmenter("en", { granularity: "word" });
const segmenterWords = (text: string) => [...segmenter.segment(text)].filter((s) => s.isWordLike).map((s) => s.segment);

describe("wordsOf", () => {
  // Pieces of every kind of word-break behaviour: Latin, digits and their separators, marks,
  // dictionary scripts (Thai, Lao, Khmer, Burmese, Han, kana), Hangul, Devanagari, Arabic, Hebrew,
  // emoji (with modifiers, ZWJ sequences, flags), format characters and many kinds of space.
  const piece = fc.constantFrom(
    "a", "Z", "é", "ß", "ǅ", "1", "9", " ", "\n", "\t", "\u00a0", "\u3000", "\u2009", ".", ",", ";", ":", "'", "’", "_", "-", "—",
    "(", "!", "?", '"', "@", "$", "€", "ราคา", "สินค้า", "ครับ", "ๆ", "ฯ", "๑", "ສະບາຍ", "ខ្មែរ", "မြန်မာ", "日本", "の", "テキスト",
    "ー", "中文", "。", "、", "한국어", "नमस्ते", "्", "।", "१२", "مرحبا", "٣", "שלום", "😀", "👍🏽", "👨‍👩‍👧", "🇹🇭", "\u0301",
    "\u200d", "\u200b", "\u00ad", "\ufeff", "ﬁ", "½", "x.com", "can't", "3.5", "1,250", "__", "\ud83d",
  );

  it("finds the word-like segments Intl.Segmenter finds in the whole text", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const text = pieces.join("");
        expect(wordsOf(text)).toEqual(segmenterWords(text));
        const normalized = text.normalize("NFKC").toLowerCase();
        expect(wordsOf(normalized)).toEqual(segmenterWords(normalized));
      }),
      { numRuns: 3000 },
    );
  });

  it("finds the same words in runs of Thai and Japanese far longer than one segmenter window", () => {
    const sentences = fc.constantFrom("ราคาสินค้านี้เท่าไหร่ครับ", "ฉันสั่งรองเท้าวิ่งสีฟ้า", "กรุงเทพมหานคร", "日本語のテキストを書きます", "東京都に住んでいます", "。", " ");
    fc.assert(
      fc.property(fc.array(sentences, { minLength: 200, maxLength: 400 }), (parts) => {
        const text = parts.join("");
        expect(wordsOf(text)).toEqual(segmenterWords(text));
      }),
      { numRuns: 20 },
    );
  });

  it("splits a long run of letters that fails the plain-run test at its end in linear time", () => {
    // A link followed by a zero-width space: every letter could be matched two ways by the plain-run
    // pattern, which backtracked through 2^n ways before refusing the run (a turn hung for minutes).
    const run = `resistance](https://www.example.com/en/heat-generated-through-resistance-calculator/calc-467?formulaid=467)\u200b.`;
    const started = performance.now();
    expect(wordsOf(run)).toEqual(segmenterWords(run));
    expect(wordsOf(`${"a".repeat(900)}\u200b`)).toEqual(["a".repeat(900)]);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("hands Intl.Segmenter nothing for Latin-script text, and at most one window at a time", () => {
    const segment = vi.spyOn(Intl.Segmenter.prototype, "segment");
    try {
      wordsOf("The parcel for order 4,512 hasn't arrived; e-mail ann.lee@example.com. ".repeat(400));
      expect(segment).not.toHaveBeenCalled();
      wordsOf(`Order ${"ราคาสินค้านี้เท่าไหร่ครับ".repeat(300)} please`);
      expect(segment).toHaveBeenCalled();
      for (const [text] of segment.mock.calls) expect(text.length).toBeLessThanOrEqual(SEGMENTER_WINDOW);
    } finally {
      segment.mockRestore();
    }
  });
});

describe("the ranked part of a long text", () => {
  const filler = "Our team moved the weekly meeting to Thursday afternoon. ";

  it("is the whole of a text within MAX_RANKED_CHARS", () => {
    const text = filler.repeat(Math.floor(MAX_RANKED_CHARS / filler.length));
    expect(rankedPart(text)).toBe(text);
  });

  it("ends before whitespace within MAX_RANKED_CHARS: a word only past it is no term", () => {
    const text = `${filler.repeat(Math.ceil(MAX_RANKED_CHARS / filler.length))} zanzibar`;
    const part = rankedPart(text);
    expect(part.length).toBeLessThanOrEqual(MAX_RANKED_CHARS);
    expect(text.startsWith(part) && /\s/.test(text[part.length] ?? "")).toBe(true);
    expect(tokenize(text)).not.toContain("zanzibar");
    expect(tokenize(text)).toEqual(tokenize(part));
  });
});

describe("stem", () => {
  it.each([
    ["prices", "price"],
    ["priced", "price"],
    ["pricing", "price"],
    ["price", "price"],
    ["running", "run"],
    ["runs", "run"],
    ["quickly", "quick"],
    ["deliveries", "deliveri"],
    ["delivery", "deliveri"],
    ["caresses", "caress"],
    ["ponies", "poni"],
    ["hopping", "hop"],
    ["agreed", "agre"],
    ["relational", "relat"],
    ["organization", "organ"],
    ["nationally", "nation"],
    ["cancellation", "cancel"],
    ["cancelled", "cancel"],
    ["status", "status"],
    ["is", "is"],
    ["x.com", "x.com"],
  ])("%s → %s", (word, expected) => {
    expect(stem(word)).toBe(expected);
  });

  it("folds inflections onto one stem", () => {
    for (const group of [
      ["refund", "refunds", "refunded", "refunding"],
      ["connect", "connected", "connecting", "connection", "connections"],
    ]) {
      expect(new Set(group.map(stem)).size).toBe(1);
    }
  });
});

describe("termFrequencies", () => {
  it("counts each term", () => {
    expect(termFrequencies(["a", "b", "a"])).toEqual(
      new Map([
        ["a", 2],
        ["b", 1],
      ]),
    );
  });
});
