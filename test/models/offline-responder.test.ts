import { offlineReply } from "../../src/models/offline-responder.js";

const empty = { summaries: [], facts: [], similar: [], events: [] };

describe("offlineReply", () => {
  it("says no model is configured and how to configure one", () => {
    const reply = offlineReply({ message: "hello", recalled: empty });
    expect(reply).toMatch(/no language model is configured/i);
    expect(reply).toContain("OPENAI_API_KEY");
    expect(reply).toContain("OPENAI_BASE_URL");
    expect(reply).toMatch(/recalled nothing/i);
  });

  it("lists the recalled facts, summaries and events, clipped", () => {
    const long = `Prefers window seats ${"and more ".repeat(60)}`;
    const reply = offlineReply({
      message: "What do you know about me?",
      recalled: {
        facts: ["phone: +66 81 234 5678", "name: Somchai", long],
        summaries: ["- Asked about the premium plan (990 baht)"],
        similar: [],
        events: ["COMPLAINT: broken charger, refund asked"],
      },
    });
    expect(reply).toContain("+66 81 234 5678");
    expect(reply).toContain("Somchai");
    expect(reply).toContain("990 baht");
    expect(reply).toContain("refund asked");
    expect(reply).not.toContain(long.trim());
    expect(reply).not.toMatch(/recalled nothing/i);
  });

  it("shows at most three items per section", () => {
    const facts = ["f1", "f2", "f3", "f4", "f5"];
    const reply = offlineReply({ message: "x", recalled: { ...empty, facts } });
    expect(reply).toContain("f3");
    expect(reply).not.toContain("f4");
    expect(reply).toContain("2 more");
  });
});
