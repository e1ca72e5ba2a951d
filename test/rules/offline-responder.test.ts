import { offlineReply } from "../../src/rules/offline-responder.js";
import { askedFactKey } from "../../src/rules/fact-question.js";

const empty = { summaries: [], facts: [], similar: [], events: [] };
const now = new Date("2025-12-01T00:00:00Z");
const known = [
  { key: "phone", value: "555-0199", validFrom: "2025-11-23T10:00:00Z" },
  { key: "name", value: "Somchai", validFrom: "2025-11-20T10:00:00Z" },
  { key: "likes.jazz", value: "jazz", validFrom: "2025-11-21T10:00:00Z" },
  { key: "likes.spicy_noodles", value: "spicy noodles", validFrom: "2025-11-21T10:00:00Z" },
  { key: "birthday", value: "03-14", validFrom: "2024-02-01T10:00:00Z" },
];

describe("offlineReply", () => {
  it("says no model is configured and how to configure one", () => {
    const reply = offlineReply({ message: "hello", recalled: empty });
    expect(reply).toMatch(/no language model is configured/i);
    expect(reply).toContain("OPENAI_API_KEY");
    expect(reply).toContain("OPENAI_BASE_URL");
    expect(reply).toMatch(/recalled nothing/i);
  });

  it.each([
    { message: "What is my phone number?", answer: "Your phone number is 555-0199 — you told me on 23 Nov." },
    { message: "เบอร์โทรของฉันคืออะไร", answer: "เบอร์โทรของคุณคือ 555-0199 — คุณบอกไว้เมื่อ 23 พ.ย." },
    { message: "mera naam kya hai?", answer: "Aapka name Somchai hai — aapne 20 Nov ko bataya tha." },
    { message: "What do I like?", answer: "You like jazz and spicy noodles — you told me on 21 Nov." },
    { message: "When is my birthday?", answer: "Your birthday is 14 March — you told me on 1 Feb 2024." },
  ])("answers $message from memory in one sentence", ({ message, answer }) => {
    expect(offlineReply({ message, recalled: { ...empty, facts: ["phone: 555-0199"], known }, now })).toBe(answer);
  });

  it("shows the few most relevant memories, not every section", () => {
    const reply = offlineReply({
      message: "Did we talk about the premium plan price?",
      recalled: {
        facts: ["phone: +66 81 234 5678", "name: Somchai"],
        summaries: ["- Asked about the premium plan (990 baht)"],
        similar: ["user: how much is the premium plan?", "user: my charger broke", "user: hello", "user: thanks"],
        events: ["COMPLAINT: broken charger, refund asked"],
      },
    });
    expect(reply).toMatch(/no language model is configured/i);
    expect(reply).toContain("premium plan?");
    expect(reply).toContain("990 baht");
    expect(reply).not.toContain("+66 81 234 5678");
    expect(reply).not.toContain("refund asked");
    expect(reply.split("\n").filter((line) => line.startsWith("  - ")).length).toBeLessThanOrEqual(3);
  });

  it("counts a run of Thai once for each time the message has it", () => {
    const reply = offlineReply({
      message: "พัสดุยังไม่มา parcel พัสดุยังไม่มา เปลี่ยนที่อยู่",
      recalled: { ...empty, similar: ["user: พัสดุยังไม่มา", "user: parcel เปลี่ยนที่อยู่", "user: เปลี่ยนที่อยู่"] },
    });
    const shown = reply.split("\n").filter((line) => line.startsWith("  - "));
    expect(shown).toEqual(["  - user: พัสดุยังไม่มา", "  - user: parcel เปลี่ยนที่อยู่", "  - user: เปลี่ยนที่อยู่"]);
  });

  it("says plainly when an asked fact is not in memory", () => {
    const reply = offlineReply({ message: "What is my email?", recalled: { ...empty, known }, now });
    expect(reply).toMatch(/don't have your email/);
    expect(reply).toMatch(/no language model is configured/i);
  });
});

describe("askedFactKey", () => {
  it.each([
    ["What's my WhatsApp number?", "whatsapp"],
    ["Where do I live?", "location.city"],
    ["what is my wife's name?", "family.wife"],
    ["ฉันชอบอะไร", "likes"],
    ["mera birthday kab hai?", "birthday"],
    ["What is the name of my cat?", "pet.cat"],
    ["What is my order number?", "order_number"],
    ["I live in Bangkok", undefined],
    ["What is the price?", undefined],
  ])("%s → %s", (text, key) => {
    expect(askedFactKey(text)).toBe(key);
  });
});
