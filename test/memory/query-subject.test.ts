import { ASSISTANT_WEIGHT_FOR_FIRST_PERSON, asksForList, roleWeightsFor } from "../../src/memory/query-subject.js";

describe("roleWeightsFor", () => {
  it.each([
    { query: "When did I move to Seattle?", demoted: true },
    { query: "Any tips for my trip to Lisbon?", demoted: true },
    { query: "What’s the name of the café I’m always talking about?", demoted: true },
    { query: "Can you remind me of the recipe you recommended?", demoted: false },
    { query: "In our previous chat, which book did I mention?", demoted: false },
    { query: "What did Caroline research?", demoted: false },
    { query: "Where is the nearest station?", demoted: false },
    { query: "ฉันย้ายไปเชียงใหม่เมื่อไหร่", demoted: false },
  ])("weighs the assistant down for $query: $demoted", ({ query, demoted }) => {
    expect(roleWeightsFor(query)).toEqual(demoted ? { assistant: ASSISTANT_WEIGHT_FOR_FIRST_PERSON } : undefined);
  });
});

describe("asksForList", () => {
  it.each([
    { query: "What activities does Melanie partake in?", list: true },
    { query: "Which books has Caroline read?", list: true },
    { query: "How many times has Melanie gone to the beach in 2023?", list: true },
    { query: "What kinds of art does Caroline make?", list: true },
    { query: "What pets does Andrew have?", list: true },
    { query: "What did Melanie paint recently?", list: false },
    { query: "Where did Caroline move from 4 years ago?", list: false },
    { query: "When did I move to Seattle?", list: false },
    { query: "ฉันย้ายไปเชียงใหม่เมื่อไหร่", list: false },
  ])("$query asks for a list: $list", ({ query, list }) => {
    expect(asksForList(query)).toBe(list);
  });
});
