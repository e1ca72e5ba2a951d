import fc from "fast-check";
import { SUMMARY_SOURCE_CHARS, summarizeByRules, type SummaryMessage } from "../../src/rules/rule-summarizer.js";

const QA: [string, string][] = [
  ["Hi, what does the premium plan cost?", "The premium plan costs 990 baht per month."],
  ["Is there a discount for a year?", "Yes, paying yearly costs 9,900 baht, two months free."],
  ["Can I add my colleague Somchai?", "Yes, extra seats are 250 baht each."],
  ["How do I pay?", "You can pay by card or PromptPay."],
  ["When does billing start?", "Billing starts on the 1st of next month."],
  ["Can I cancel later?", "You can cancel any time; the plan runs until the period ends."],
  ["Where do I find the invoice?", "Invoices are under Settings, Billing."],
  ["Do you support Thai?", "Yes, the app is available in Thai and English."],
  ["What is the storage limit?", "Premium includes 200 GB of storage."],
  ["OK, will you book the upgrade for Friday?", "Confirmed: the upgrade is booked for Friday at 10:00."],
];

function transcript(): SummaryMessage[] {
  return QA.flatMap(([q, a], i) => [
    { role: "user" as const, text: q, id: `u${i}` },
    { role: "assistant" as const, text: a, id: `a${i}` },
  ]);
}

describe("summarizeByRules", () => {
  it("gives 4–6 bullets for 10 question/answer pairs, with the numbers", () => {
    const summary = summarizeByRules(Object.freeze(transcript()));
    expect(summary.bullets.length).toBeGreaterThanOrEqual(4);
    expect(summary.bullets.length).toBeLessThanOrEqual(6);
    expect(summary.bullets.some((b) => b.startsWith("Q: ") && b.includes(" → A: "))).toBe(true);
    expect(summary.text).toMatch(/\d/);
    expect(summary.text).toMatch(/990|9,900|250|200 GB/);
    expect(summary.text.split("\n")).toHaveLength(summary.bullets.length);
  });

  it("respects maxBullets and roughly maxChars", () => {
    const summary = summarizeByRules(transcript(), { maxBullets: 3, maxChars: 300 });
    expect(summary.bullets.length).toBeLessThanOrEqual(3);
    expect(summary.text.length).toBeLessThanOrEqual(330);
  });

  it("still summarizes small talk with no key points", () => {
    const summary = summarizeByRules([
      { role: "user", text: "hello", id: "1" },
      { role: "assistant", text: "Hi! How can I help?", id: "2" },
    ]);
    expect(summary.bullets.length).toBeGreaterThan(0);
    expect(summary.text).toContain("hello");
  });

  it("is empty only for an empty transcript", () => {
    expect(summarizeByRules([])).toEqual({ text: "", bullets: [] });
  });

  it("is deterministic and never empty for non-empty input", () => {
    const message = fc.record({
      role: fc.constantFrom("user" as const, "assistant" as const),
      text: fc.string({ maxLength: 120 }),
      id: fc.uuid(),
    });
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 12 }), (messages) => {
        const first = summarizeByRules(messages);
        expect(first.bullets.length).toBeGreaterThan(0);
        expect(first.bullets.length).toBeLessThanOrEqual(6);
        expect(first.text).not.toBe("");
        expect(summarizeByRules(messages)).toEqual(first);
      }),
    );
  });
});

describe("summarizeByRules on long messages", () => {
  it(`reads the first ${SUMMARY_SOURCE_CHARS} characters of each message only`, () => {
    const filler = "We talked about the weather and the traffic on the way to work. ".repeat(40);
    const messages: SummaryMessage[] = [
      { id: "u1", role: "user", text: `${filler} We decided to book the Friday flight to Chiang Mai.` },
      { id: "a1", role: "assistant", text: "Noted." },
    ];
    expect(filler.length).toBeGreaterThan(SUMMARY_SOURCE_CHARS);
    expect(summarizeByRules(messages).text).not.toContain("Friday");
  });
});
