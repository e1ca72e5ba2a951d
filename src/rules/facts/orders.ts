import type { Found } from "./found.js";

// An order number: letters, digits and hyphens with at least one digit, four characters or more
// (the shape `findOrderIds` in text-signals reads as an order entity).
// An amount or a span after it ("my order is 1500 baht") is not a number of an order.
const ID = "([A-Za-z0-9][A-Za-z0-9-]*\\d[A-Za-z0-9-]*)(?![A-Za-z0-9-])(?![.,]\\d|\\s*(?:บาท|ชิ้น|วัน|(?:baht|thb|rs\\.?|rupees?|inr|usd|dollars?|eur|euros?|pounds?|gbp|items?|pieces?|pcs|units?|days?|hours?|weeks?|minutes?|mins?|kg)\\b))";
const PRONOUN = "(?:ผม|ฉัน|ดิฉัน|หนู|เรา)";
const THAI_ORDER = "(?:คำสั่งซื้อ|ออเดอร์)";
const LABEL = "(?:number|no\\.?|num|id|code|ref(?:erence)?|nambar)";

// Only where the message says the run is an order number: "my order …", "order number …", "order #…".
// A bare "refund for order 55123" is a request about an order, not a statement of the user's.
const ORDER_NUMBERS: RegExp[] = [
  new RegExp(`\\b(?:my|our|mera|meri|hamara)\\s+order(?:\\s+${LABEL})?\\s*(?:is|'s|was|:|=|-|hai)?\\s*#?\\s*${ID}`, "gi"),
  new RegExp(`\\border\\s*${LABEL}\\s*(?:is|was|:|=|-|hai)?\\s*#?\\s*${ID}`, "gi"),
  new RegExp(`\\border\\s*#\\s*${ID}`, "gi"),
  new RegExp(`(?:(?:หมายเลข|เลขที่|เลข)\\s*${THAI_ORDER}(?:\\s*(?:ของ)?\\s*${PRONOUN})?|${THAI_ORDER}\\s*(?:ของ)?\\s*${PRONOUN}|${THAI_ORDER}\\s*(?=คือ|:|เลขที่|หมายเลข|#))\\s*(?:คือ|:|เลขที่|หมายเลข)?\\s*#?\\s*${ID}`, "g"),
];

// A word each of ORDER_NUMBERS needs: a message without one is not given to them, which V8 would
// otherwise compile on a fresh instance's first turn (about 1 ms for the four).
const ORDER_WORD = /order|คำสั่งซื้อ|ออเดอร์/i;

/** Text just before a digit run that makes it an order number, not a phone number. */
export const ORDER_CUE_BEFORE = new RegExp(`(?:\\border(?:\\s*${LABEL})?|คำสั่งซื้อ|ออเดอร์)\\s*(?:is|was|:|=|-|คือ)?\\s*#?\\s*$`, "i");

/**
 * The order number a message states as the user's (`order_number`), in any of the covered
 * languages: "my order number is A-10023", "order #48213", "mera order number 55123 hai",
 * "เลขคำสั่งซื้อของฉันคือ TH-88812". The first one written wins; the value is kept as written.
 */
export function orderFacts(text: string): Found[] {
  if (!ORDER_WORD.test(text)) return [];
  let first: { value: string; index: number } | undefined;
  for (const pattern of ORDER_NUMBERS) {
    for (const m of text.matchAll(pattern)) {
      const value = (m[1] ?? "").replace(/-+$/, "");
      if (value.length < 4 || (first && first.index <= (m.index ?? 0))) continue;
      first = { value, index: m.index ?? 0 };
    }
  }
  return first ? [{ key: "order_number", value: first.value }] : [];
}
