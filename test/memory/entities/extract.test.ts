import { entityKey, extractFromMessage, MAX_ENTITIES_PER_MESSAGE, queryEntityKeys } from "../../../src/memory/entities/extract.js";

/** Relations as "from -type-> to" strings, for tables of cases. */
function relationsOf(text: string, speaker?: string, active?: string): string[] {
  return extractFromMessage(text, speaker, active).relations.map((r) => `${r.from} -${r.type}-> ${r.to}`);
}

describe("extractFromMessage", () => {
  it.each([
    { text: "My sister Priya moved to Pune last year.", speaker: "Ravi", has: ["ravi -sister-> priya", "priya -lives_in-> pune"] },
    { text: "I moved from Sweden 4 years ago", speaker: "Caroline", has: ["caroline -moved_from-> sweden"] },
    { text: "I live in New York and my boss Dana lives in Austin.", speaker: "me", has: ["me -lives_in-> new york", "me -boss-> dana", "dana -lives_in-> austin"] },
    { text: "Jordan works at Acme Inc these days.", speaker: "Sam", has: ["jordan -works_at-> acme inc"] },
    { text: "My husband Tom studies at Oxford University.", speaker: "Ann", has: ["ann -partner-> tom", "tom -studies_at-> oxford university"] },
  ])("reads $has from “$text”", ({ text, speaker, has }) => {
    expect(relationsOf(text, speaker)).toEqual(expect.arrayContaining(has));
  });

  it.each([
    { text: "Thanks, Melanie! That was fun.", name: "melanie" },
    { text: "Hey Caroline, how are you?", name: "caroline" },
    { text: "That sounds lovely, Jon!", name: "jon" },
  ])("does not take a name that addresses someone (“$text”) for a mention", ({ text, name }) => {
    expect(extractFromMessage(text, "Someone").entities.map((e) => e.key)).not.toContain(name);
  });

  it.each([
    { text: "She moved to Pune in May.", active: "priya", has: "priya -lives_in-> pune" },
    { text: "usko bhi Jaipur jaana hai. He moved to Jaipur.", active: "arjun", has: "arjun -lives_in-> jaipur" },
  ])("resolves a pronoun to the session's active person: $has", ({ text, active, has }) => {
    const extraction = extractFromMessage(text, "Ravi", active);
    expect(relationsOf(text, "Ravi", active)).toContain(has);
    expect(extraction.entities.find((e) => e.key === active)?.mentioned).not.toBe(false);
  });

  it("keeps the alias a kin word gives a name, and marks the speaker as not mentioned", () => {
    const { entities } = extractFromMessage("My sister Priya is visiting.", "Ravi");
    expect(entities.find((e) => e.key === "priya")).toMatchObject({ kind: "person", aliases: ["sister"] });
    expect(entities.find((e) => e.key === "ravi")?.mentioned).toBe(false);
  });

  it("types a name after a place preposition as a place and a company suffix as an organisation", () => {
    const kinds = Object.fromEntries(extractFromMessage("I flew to Lisbon to meet people from Globex Corp.", "Kim").entities.map((e) => [e.key, e.kind]));
    expect(kinds).toMatchObject({ lisbon: "place", "globex corp": "organization" });
  });

  it("types where someone works or studies as an organisation, though 'at' comes before it", () => {
    const kinds = Object.fromEntries(extractFromMessage("She works at Infosys and studies at Stanford; we met at Lisbon.", "Kim", "priya").entities.map((e) => [e.key, e.kind]));
    expect(kinds).toMatchObject({ infosys: "organization", stanford: "organization", lisbon: "place" });
  });

  it("names without a pattern are entities without relations", () => {
    const { entities, relations } = extractFromMessage("We watched Inception with Maya.", "Lee");
    expect(entities.map((e) => e.key)).toEqual(["lee", "inception", "maya"]);
    expect(relations).toEqual([]);
  });

  it("bounds what one message adds: at most MAX_ENTITIES_PER_MESSAGE entities, no name of more than five words", () => {
    const many = Array.from({ length: 60 }, (_, i) => `and Name${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`).join(" ");
    expect(extractFromMessage(`we met ${many}`, "Kim").entities).toHaveLength(MAX_ENTITIES_PER_MESSAGE);
    expect(extractFromMessage("we read The Very Long Title Of Some Book today", undefined).entities).toEqual([]);
  });

  it("finds nothing in text without names or patterns", () => {
    expect(extractFromMessage("i had a quiet weekend at home.", undefined)).toEqual({ entities: [], relations: [] });
  });
});

describe("queryEntityKeys", () => {
  it.each([
    { query: "What did Caroline research?", keys: ["caroline"] },
    { query: "Where does my sister live?", keys: ["~sister"] },
    { query: "Which cities have Jean and John visited?", keys: ["jean", "john"] },
    { query: "Caroline Smith's job?", keys: ["caroline smith", "caroline", "smith"] },
    { query: "what do i like?", keys: [] },
  ])("$query → $keys", ({ query, keys }) => {
    expect(queryEntityKeys(query)).toEqual(keys);
  });

  it("normalises names to one key", () => {
    expect(entityKey("  New   York's ")).toBe("new york");
  });
});
