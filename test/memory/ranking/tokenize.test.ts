import fc from "fast-check";
import { stem, termFrequencies, tokenize } from "../../../src/memory/ranking/index.js";

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
