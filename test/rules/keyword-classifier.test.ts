import fc from "fast-check";
import { CLASSIFIED_HEAD_CHARS, CLASSIFIED_TAIL_CHARS, classifyByKeywords } from "../../src/rules/keyword-classifier.js";
import { classifiedEventSchema } from "../../src/rules/event-schema.js";
import { detectLanguage } from "../../src/rules/text-signals.js";

describe("classifyByKeywords", () => {
  it.each([
    { text: "ราคาสินค้านี้เท่าไหร่", type: "INQUIRY", language: "th", min: 0.5, max: 1 },
    { text: "This is broken, I want a refund", type: "COMPLAINT", language: "en", min: 0.75, max: 1 },
    { text: "Please send me the invoice", type: "REQUEST", language: "en", min: 0.3, max: 1 },
    { text: "Transfer 500 baht to Bharat", type: "TRANSACTION", language: "en", min: 0.5, max: 1 },
    { text: "Usko 500 add karo", type: "TRANSACTION", language: "hi", min: 0.5, max: 1 },
    { text: "Thanks, great service", type: "FEEDBACK", language: "en", min: 0, max: 1 },
    { text: "hi", type: "GENERIC_EVENT", language: "en", min: 0, max: 0.49 },
    { text: "Bharat ka balance kitna hai?", type: "INQUIRY", language: "hi", min: 0.5, max: 1 },
    { text: "My app crashes when I try to log in", type: "SUPPORT", language: "en", min: 0.5, max: 1 },
    { text: "ขอบคุณมากครับ", type: "FEEDBACK", language: "th", min: 0, max: 1 },
    { text: "ฉันอยากยกเลิกการสั่งซื้อ", type: "REQUEST", language: "th", min: 0.5, max: 1 },
  ])("$text → $type ($language)", ({ text, type, language, min, max }) => {
    const event = classifyByKeywords(text);
    expect(classifiedEventSchema.parse(event)).toEqual(event);
    expect(event.type).toBe(type);
    expect(event.language).toBe(language);
    expect(event.importance).toBeGreaterThanOrEqual(min);
    expect(event.importance).toBeLessThanOrEqual(max);
  });

  it("reads a romanised-Hindi balance question", () => {
    const event = classifyByKeywords("Bharat ka balance kitna hai?");
    expect(event.intent).toBe("balance_inquiry");
    expect(event.entities).toContainEqual({ type: "person", value: "Bharat" });
  });

  it("finds the payee and the amount of a transfer", () => {
    const event = classifyByKeywords("Transfer 500 baht to Bharat");
    expect(event.entities).toContainEqual({ type: "person", value: "Bharat" });
    expect(event.payload).toMatchObject({ amount: 500, currency: "THB" });
  });

  it("is deterministic and always schema-valid", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        const first = classifyByKeywords(text);
        expect(classifiedEventSchema.safeParse(first).success).toBe(true);
        expect(classifyByKeywords(text)).toEqual(first);
      }),
    );
  });
});

describe("follow-ups", () => {
  const context = { lastIntent: "balance_inquiry", activeEntities: [{ type: "person", value: "Bharat" }] };

  it("resolves 'usko' to the active entity and keeps the amount", () => {
    const event = classifyByKeywords("Usko 500 add karo", context);
    expect(event.type).toBe("TRANSACTION");
    expect(event.entities).toEqual([{ type: "person", value: "Bharat" }]);
    expect(event.payload).toMatchObject({ amount: 500, resolvedFrom: "context" });
  });

  it.each(["Send it to him", "What about him?", "เขาเป็นยังไงบ้าง", "Uska kya hua?"])("carries entities into %s", (text) => {
    const event = classifyByKeywords(text, context);
    expect(event.entities).toContainEqual({ type: "person", value: "Bharat" });
    expect(event.payload.resolvedFrom).toBe("context");
  });

  it("continues the last intent for a vague follow-up", () => {
    expect(classifyByKeywords("What about him?", context).intent).toBe("balance_inquiry");
  });

  it("does not carry entities when the message names its own", () => {
    const event = classifyByKeywords("Send it to Priya", context);
    expect(event.entities).toEqual([{ type: "person", value: "Priya" }]);
    expect(event.payload.resolvedFrom).toBeUndefined();
  });

  it("does not carry entities without a pronoun", () => {
    const event = classifyByKeywords("Please send me the invoice", context);
    expect(event.entities).toEqual([]);
  });
});

describe("attribute updates", () => {
  it.each([
    { text: "My number is +66 81 234 5678", key: "phone", value: "+66 81 234 5678" },
    { text: "เบอร์ของฉันคือ 081-234-5678", key: "phone", value: "081-234-5678" },
    { text: "You can email me at somchai@example.co.th", key: "email", value: "somchai@example.co.th" },
    { text: "My name is Somchai", key: "name", value: "Somchai" },
    { text: "my name is Anna and I need help", key: "name", value: "Anna" },
    { text: "ผมชื่อสมชายครับ", key: "name", value: "สมชาย" },
    { text: "Mera naam Rahul hai", key: "name", value: "Rahul" },
    { text: "I prefer Thai", key: "preference.language", value: "Thai" },
    { text: "Please reply in Hindi", key: "preference.language", value: "Hindi" },
    { text: "I like window seats", key: "likes.window_seats", value: "window seats" },
  ])("$text → $key=$value", ({ text, key, value }) => {
    const event = classifyByKeywords(text);
    expect(event.attributeUpdates).toContainEqual({ key, value });
    expect(event.importance).toBeGreaterThanOrEqual(0.7);
  });

  it("does not read a phone number as an amount", () => {
    expect(classifyByKeywords("My number is 0812345678").payload.amount).toBeUndefined();
  });

  it("finds nothing in plain small talk", () => {
    expect(classifyByKeywords("I like your service, thanks").attributeUpdates).toEqual([]);
    expect(classifyByKeywords("hello there").attributeUpdates).toEqual([]);
  });
});

describe("detectLanguage", () => {
  it.each([
    { text: "สวัสดีครับ", language: "th" },
    { text: "Mujhe refund chahiye", language: "hi" },
    { text: "Mera order kahan hai", language: "hi" },
    { text: "नमस्ते", language: "hi" },
    { text: "Where is my order?", language: "en" },
    { text: "Take a look at Ka Lok's café", language: "en" },
  ])("$text → $language", ({ text, language }) => {
    expect(detectLanguage(text)).toBe(language);
  });
});

describe("classifyByKeywords on a long message", () => {
  const paste = "The quarterly report needs updated figures for revenue and customer growth. ".repeat(400);

  it("reads the request stated before or after a long paste", () => {
    expect(classifyByKeywords(`Please refund order 4512. ${paste}`).intent).toBe("refund_request");
    expect(classifyByKeywords(`${paste} Please refund order 4512.`).intent).toBe("refund_request");
  });

  it(`reads only the first ${CLASSIFIED_HEAD_CHARS} and last ${CLASSIFIED_TAIL_CHARS} characters`, () => {
    const event = classifyByKeywords(`${paste} My name is Anong and I want a refund. ${paste}`);
    expect(event.intent).not.toBe("refund_request");
    expect(event.attributeUpdates).toEqual([]);
  });
});
