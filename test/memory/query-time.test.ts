import { relativeTimeTerms } from "../../src/memory/query-time.js";
import { asksForAggregate } from "../../src/memory/query-subject.js";

describe("relativeTimeTerms", () => {
  it.each([
    { query: "I received a piece of jewelry last Saturday from whom?", terms: ["last", "saturdai"] },
    { query: "How much did I spend on workshops in the last four months?", terms: ["last", "four", "month"] },
    { query: "What kitchen appliance did I buy 10 days ago?", terms: ["10", "dai", "ago"] },
    { query: "What is the order of the six museums I visited from earliest to latest?", terms: ["order", "earliest", "latest"] },
    { query: "Which streaming service did I start using most recently?", terms: ["recent"] },
    { query: "Any tips for my visit to the music store this weekend?", terms: ["weekend"] },
    // Calendar names are matched by the date words a message is indexed with: they stay topic terms.
    { query: "What sports events did I watch in January 2023?", terms: [] },
    // "today" is how the answering message speaks of its own day: left to match it.
    { query: "Which airlines did I fly with before today?", terms: [] },
    // A question about others quotes their conversation, where "last week" was written as asked.
    { query: "What did Joanna find in old notebooks last week?", terms: [] },
    { query: "How many days did I spend in Hawaii?", terms: [] },
  ])("$query → $terms", ({ query, terms }) => {
    expect(relativeTimeTerms(query)).toEqual(terms);
  });
});

describe("asksForAggregate", () => {
  it.each([
    { query: "What is the total cost of the car cover and the detailing spray I purchased?", aggregate: true },
    { query: "How much money did I raise for charity in total?", aggregate: true },
    { query: "What is the order of the concerts I attended, starting from the earliest?", aggregate: true },
    { query: "How long did I take to finish both books combined?", aggregate: true },
    { query: "What did I order at the café last time?", aggregate: false },
    { query: "When did I move to Seattle?", aggregate: false },
  ])("$query asks for a sum or an order: $aggregate", ({ query, aggregate }) => {
    expect(asksForAggregate(query)).toBe(aggregate);
  });
});
