import { describe, expect, it } from "vitest";
import { extractFacts } from "../../src/rules/facts/index.js";

// Pets, order numbers, birthdays and ages, read offline (issue 31). Each row: the message and the
// facts it must give, no more; `[]` rows are sentences that look like one and are not.
describe("extractFacts: pets, order numbers, birthdays and ages", () => {
  it.each([
    // Pets: `pet.<animal>` holds the pet's name.
    { text: "My cat is called Mochi", facts: [["pet.cat", "Mochi"]] },
    { text: "my dog's name is Rex", facts: [["pet.dog", "Rex"]] },
    { text: "My cat\u2019s name is Mochi", facts: [["pet.cat", "Mochi"]] },
    { text: "I have a cat called Mochi", facts: [["pet.cat", "Mochi"]] },
    { text: "We've got a little puppy named Rex", facts: [["pet.dog", "Rex"]] },
    { text: "my dog Rex is sick", facts: [["pet.dog", "Rex"]] },
    { text: "แมวของฉันชื่อโมจิ", facts: [["pet.cat", "โมจิ"]] },
    { text: "ผมมีหมาชื่อเร็กซ์ครับ", facts: [["pet.dog", "เร็กซ์"]] },
    { text: "meri billi ka naam Mochi hai", facts: [["pet.cat", "Mochi"]] },
    { text: "mere kutte ka naam Rex hai", facts: [["pet.dog", "Rex"]] },
    { text: "my cat is sick", facts: [] },
    // Order numbers: only where the message says the run is one.
    { text: "my order number is A-10023", facts: [["order_number", "A-10023"]] },
    { text: "order #48213", facts: [["order_number", "48213"]] },
    { text: "MY ORDER NUMBER IS A-10023", facts: [["order_number", "A-10023"]] },
    { text: "ออเดอร์ของผม 778812", facts: [["order_number", "778812"]] },
    { text: "Where is my order #48213?", facts: [["order_number", "48213"]] },
    { text: "my order number is 4821399123", facts: [["order_number", "4821399123"]] },
    { text: "mera order number 55123 hai", facts: [["order_number", "55123"]] },
    { text: "เลขคำสั่งซื้อของฉันคือ TH-88812", facts: [["order_number", "TH-88812"]] },
    { text: "I want a refund for order 55123", facts: [] },
    { text: "my order was 1500 baht", facts: [] },
    { text: "my order is 3 weeks late", facts: [] },
    { text: "ออเดอร์ 778812 ยังไม่มา", facts: [] },
    // Birthdays: the author's only.
    { text: "My birthday is on 14 March", facts: [["birthday", "03-14"]] },
    { text: "I was born on 3 May 1990", facts: [["birthday", "1990-05-03"]] },
    { text: "ผมเกิดวันที่ 10 ตุลาคม 2535", facts: [["birthday", "1992-10-10"]] },
    { text: "mera birthday 12 August ko hai", facts: [["birthday", "08-12"]] },
    { text: "My son was born on 3 May 2015", facts: [] },
    { text: "my wife's birthday is on 5 June", facts: [] },
    { text: "Her birthday is March 3", facts: [] },
    { text: "mere bete ka birthday 12 August ko hai", facts: [] },
    { text: "วันเกิดแม่ผมคือ 5 พฤษภาคม", facts: [] },
    { text: "ลูกผมเกิดวันที่ 10 ตุลาคม 2560", facts: [] },
    // Ages.
    { text: "I'm 34", facts: [["age", "34"]] },
    { text: "I am 34 years old", facts: [["age", "34"]] },
    { text: "I'm thirty-four years old", facts: [["age", "34"]] },
    { text: "I just turned 40 last week", facts: [["age", "40"]] },
    { text: "I\u2019m 34, and I live in Bangkok", facts: [["age", "34"], ["location.city", "Bangkok"]] },
    { text: "ผมอายุ 34 ปี", facts: [["age", "34"]] },
    { text: "main 34 saal ka hoon", facts: [["age", "34"]] },
    { text: "meri umar 34 saal hai", facts: [["age", "34"]] },
    { text: "I'm 34 minutes late", facts: [] },
    { text: "I'm 5 minutes away", facts: [] },
    { text: "I'm 100% sure", facts: [] },
    { text: "I'm almost 40", facts: [] },
    { text: "I'm in room 34", facts: [] },
    { text: "I'm tired", facts: [] },
    { text: "ลูกผมอายุ 5 ขวบ", facts: [] },
    { text: "แมวของผมอายุ 3 ปี", facts: [] },
    { text: "mere bete ki umar 5 saal hai", facts: [] },
    { text: "main 10 minute late hoon", facts: [] },
  ])("$text → $facts", ({ text, facts }) => {
    expect(extractFacts(text).map((fact) => [fact.key, fact.value])).toEqual(facts);
  });

  it("keeps a pet's name out of the user's own name", () => {
    for (const text of ["แมวของฉันชื่อโมจิ", "My cat is called Mochi", "meri billi ka naam Mochi hai"]) {
      expect(extractFacts(text).map((fact) => fact.key)).not.toContain("name");
    }
  });
});
