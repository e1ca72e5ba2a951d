import { describe, expect, it } from "vitest";
import { askedFact } from "../../src/rules/fact-question.js";
import { offlineReply, type KnownFact } from "../../src/rules/offline-responder.js";

const now = new Date("2025-12-01T00:00:00Z");
const told = "2025-11-23T10:00:00Z";
const base: KnownFact[] = [
  { key: "name", value: "Maya Lindqvist", validFrom: told },
  { key: "phone", value: "555-0199", validFrom: told },
  { key: "family.wife", value: "Nok", validFrom: told },
  { key: "likes.jazz", value: "jazz", validFrom: told },
];
const more: KnownFact[] = [
  { key: "pet.cat", value: "Mochi", validFrom: told },
  { key: "pet.dog", value: "Rex", validFrom: told },
  { key: "order_number", value: "A-10023", validFrom: told },
  { key: "birthday", value: "1990-05-03", validFrom: told },
  { key: "age", value: "34", validFrom: told },
];
const reply = (message: string, known: KnownFact[]) =>
  offlineReply({ message, recalled: { summaries: [], facts: known.map((f) => `${f.key}: ${f.value}`), similar: [], events: [], known }, now });

// The question's subject decides the key: another key's value is never the answer.
describe("askedFact", () => {
  it.each([
    { text: "What is the name of my cat?", key: "pet.cat", label: "cat's name" },
    { text: "What is my cat's name?", key: "pet.cat", label: "cat's name" },
    { text: "What is my cat called?", key: "pet.cat", label: "cat's name" },
    { text: "What are my pets' names?", key: "pet", label: "pet's name" },
    { text: "What is my order number?", key: "order_number", label: "order number" },
    { text: "What is my phone number?", key: "phone", label: "phone number" },
    { text: "What's my number?", key: "phone", label: "phone number" },
    { text: "When is my birthday?", key: "birthday", label: "birthday" },
    { text: "How old am I?", key: "age", label: "age" },
    { text: "what is my wife's name?", key: "family.wife", label: "wife" },
    { text: "Who is my wife?", key: "family.wife", label: "wife" },
    { text: "แมวของฉันชื่ออะไร", key: "pet.cat", label: "cat's name" },
    { text: "ฉันอายุเท่าไหร่", key: "age", label: "age" },
    { text: "เลขคำสั่งซื้อของฉันคืออะไร", key: "order_number", label: "order number" },
    { text: "หมายเลขโทรศัพท์ของฉันคืออะไร", key: "phone", label: "phone number" },
    { text: "meri billi ka naam kya hai?", key: "pet.cat", label: "cat's name" },
    { text: "mera order number kya hai?", key: "order_number", label: "order number" },
    { text: "meri umar kya hai", key: "age", label: "age" },
    // Asked, but no key holds it: said to be unknown, never answered from another key.
    { text: "What is my boss's name?", key: undefined, label: "boss's name" },
    { text: "When is my wife's birthday?", key: undefined, label: "wife's birthday" },
    { text: "How old is my dog?", key: undefined, label: "dog's age" },
    { text: "What is my account number?", key: undefined, label: "account number" },
    { text: "ลูกผมอายุเท่าไหร่", key: undefined, label: "child's age" },
  ])("$text → $key", ({ text, key, label }) => {
    expect(askedFact(text)).toEqual(key ? { key, label } : { label });
  });

  it.each([
    "What does my wife like?",
    "Where is my order?",
    "What is the price of my plan?",
    "ลูกค้าของฉันชื่ออะไร",
    "รถของฉันอายุกี่ปี",
    "เกิดอะไรขึ้นกับออเดอร์ของฉัน",
    "โทรหาฉันได้ไหม",
    "I'm 34",
  ])(
    "%s asks no fact of the user's",
    (text) => {
      expect(askedFact(text)).toBeUndefined();
    },
  );
});

describe("offlineReply answers only under the asked key", () => {
  it.each([
    { message: "What is the name of my cat?", answer: "Your cat is called Mochi — you told me on 23 Nov." },
    { message: "What is my cat's name?", answer: "Your cat is called Mochi — you told me on 23 Nov." },
    { message: "What is my order number?", answer: "Your order number is A-10023 — you told me on 23 Nov." },
    { message: "When is my birthday?", answer: "Your birthday is 3 May 1990 — you told me on 23 Nov." },
    { message: "How old am I?", answer: "You are 34 — you told me on 23 Nov." },
    { message: "What are my pets called?", answer: "Your cat is called Mochi and your dog is called Rex — you told me on 23 Nov." },
    { message: "แมวของฉันชื่ออะไร", answer: "ชื่อแมวของคุณคือ Mochi — คุณบอกไว้เมื่อ 23 พ.ย." },
    { message: "meri billi ka naam kya hai?", answer: "Aapke cat ka naam Mochi hai — aapne 23 Nov ko bataya tha." },
    { message: "What is my wife's name?", answer: "Your wife is Nok — you told me on 23 Nov." },
  ])("$message → $answer", ({ message, answer }) => {
    expect(reply(message, [...base, ...more])).toBe(answer);
  });

  // Without the asked fact the reply says so; it never gives another key's value as the answer.
  it.each([
    { message: "What is the name of my cat?", lead: "I don't have your cat's name in memory yet.", wrong: "Your name is" },
    { message: "What is my order number?", lead: "I don't have your order number in memory yet.", wrong: "phone number" },
    { message: "How old am I?", lead: "I don't have your age in memory yet.", wrong: "Your" },
    { message: "When is my birthday?", lead: "I don't have your birthday in memory yet.", wrong: "Your" },
    { message: "What is my boss's name?", lead: "I don't have your boss's name in memory yet.", wrong: "Your name is" },
    { message: "When is my wife's birthday?", lead: "I don't have your wife's birthday in memory yet.", wrong: "Your wife is" },
    { message: "What does my wife like?", lead: "No language model is configured", wrong: "You like" },
  ])("$message without the fact → $lead", ({ message, lead, wrong }) => {
    const text = reply(message, base);
    expect(text.startsWith(lead)).toBe(true);
    expect(text).not.toContain(wrong);
  });

  it("says how old the user was when the age was told in an earlier year", () => {
    const old = [{ key: "age", value: "34", validFrom: "2024-02-01T10:00:00Z" }];
    expect(reply("How old am I?", old)).toBe("You were 34 when you told me, on 1 Feb 2024.");
  });
});
