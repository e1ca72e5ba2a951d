import * as chronoModule from "chrono-node";
import compromiseModule from "compromise";
import * as phoneModule from "libphonenumber-js";
import { dates, loadedLanguageTools, nlp, phones, warmLanguageTools } from "../../src/memory/language-tools.js";

/**
 * The language tools load on first use (their CommonJS builds) and give what their ES modules
 * give, so what a turn gets does not depend on when, or how, they were loaded.
 */
describe("language tools loaded on first use", () => {
  it("loads nothing until asked, then one step at a time, and only while idle", async () => {
    expect(loadedLanguageTools()).toEqual({ compromise: false, chrono: false, phoneNumbers: false });
    // Idle for the first step only: the date parser loads, the rest waits, then the warm-up is stopped.
    let asked = 0;
    const stop = new AbortController();
    const warming = warmLanguageTools(() => asked++ === 0, { pollMs: 1, signal: stop.signal });
    while (asked < 3) await new Promise((resolve) => setTimeout(resolve, 1));
    stop.abort();
    await warming;
    expect(loadedLanguageTools()).toEqual({ compromise: false, chrono: true, phoneNumbers: false });
    // Idle throughout: everything loads, and the CPU it took is reported.
    expect(await warmLanguageTools(() => true)).toBeGreaterThanOrEqual(0);
    expect(loadedLanguageTools()).toEqual({ compromise: true, chrono: true, phoneNumbers: true });
  });

  it.each([
    "My name is Anong, I work as a nurse at Siriraj Hospital in Bangkok and I have 2 cats.",
    "We flew to Paris with Tom last Friday; his birthday is 12 August 1990.",
    "Call me on +66 81 234 5678 or at twenty-one Baker Street, London.",
  ])("reads %j as the ES modules do", (text) => {
    // Each term's text and tags (a term's id is a counter of its process, not a reading), and the named entities.
    const read = (doc: ReturnType<typeof compromiseModule>) => ({
      terms: (doc.json() as { terms: { text: string; tags: string[] }[] }[]).flatMap((s) => s.terms.map((t) => [t.text, [...t.tags].sort()])),
      people: doc.people().out("array") as string[],
      places: doc.places().out("array") as string[],
    });
    expect(read(nlp()(text))).toEqual(read(compromiseModule(text)));
    const instant = new Date("2024-05-08T10:00:00Z");
    const parsed = (chrono: typeof chronoModule) => chrono.parse(text, { instant, timezone: 0 }).map((r) => ({ text: r.text, index: r.index, date: r.start.date().toISOString() }));
    expect(parsed(dates())).toEqual(parsed(chronoModule));
    expect(JSON.stringify(phones().findNumbers(text, "TH"))).toEqual(JSON.stringify(phoneModule.findNumbers(text, "TH")));
  });
});
