import type { ImportSession } from "../../src/index.js";

/**
 * Recall fixtures every engine must rank alike (the recall contract): conversations shaped like
 * the two development sets, written for these tests. `locomoShaped`: two friends who name each
 * other, dated sessions, questions answered by the next turn, short replies between one speaker's
 * turns. `longMemEvalShaped`: a user and an assistant (no speaker names), long assistant turns,
 * the evidence a few user turns among many sessions of small talk.
 */
export interface RecallFixture {
  name: string;
  sessions: ImportSession[];
  queries: string[];
}

/** A seeded generator (mulberry32): the same filler on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FILLER = (
  "weather garden coffee train weekend movie music dinner friend office meeting project holiday " +
  "book city river market bread bicycle concert museum beach mountain cousin lunch laptop phone " +
  "painting recipe soup walk morning evening rain sunny busy tired happy plan idea story game"
).split(" ");

function filler(random: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(FILLER[Math.floor(random() * FILLER.length)] ?? "day");
  return `I think the ${out.join(" ")}.`;
}

const day = (n: number): string => new Date(Date.UTC(2024, 0, 1 + n, 18)).toISOString();

function locomoShaped(): RecallFixture {
  const random = seeded(7);
  const planted: [speaker: string, text: string][][] = [
    [
      ["Ana", "Hey Bram! How was the trip to Lisbon?"],
      ["Bram", "Wonderful. We took the old tram up to the castle and ate grilled sardines."],
      ["Ana", "Wow!"],
      ["Bram", "And I bought a blue ceramic tile for my kitchen wall."],
      ["Ana", "I started pottery classes on Thursdays, by the way."],
      ["Bram", "What are you making?"],
      ["Ana", "A lopsided teapot for my grandmother."],
    ],
    [
      ["Bram", "My sister Iris moved to Utrecht for a job at the observatory."],
      ["Ana", "Nice. Is she an astronomer?"],
      ["Bram", "She studies variable stars."],
      ["Ana", "I adopted a cat named Pepper last week."],
      ["Bram", "What colour is Pepper?"],
      ["Ana", "Black with one white paw."],
      ["Bram", "I go surfing at the harbour every Sunday."],
    ],
  ];
  const sessions: ImportSession[] = [];
  for (let s = 0; s < 6; s++) {
    const turns = planted[s % 3 === 0 ? s / 3 : -1] ?? [];
    const messages = [...turns];
    for (let i = 0; i < 8; i++) messages.push([i % 2 === 0 ? "Ana" : "Bram", filler(random, 6 + Math.floor(random() * 10))]);
    sessions.push({
      sessionId: `locomo-${s}`,
      startedAt: day(s * 7),
      messages: messages.map(([speaker, text], i) => ({
        id: `L${s}:${i}`,
        role: speaker === "Ana" ? ("user" as const) : ("assistant" as const),
        speaker,
        text,
        createdAt: new Date(Date.parse(day(s * 7)) + i * 60_000).toISOString(),
      })),
    });
  }
  return {
    name: "LoCoMo-shaped",
    sessions,
    queries: [
      "What did Bram buy in Lisbon?",
      "What is Ana making in pottery class?",
      "Where did Bram's sister move?",
      "What colour is Ana's cat Pepper?",
      "What does Iris study?",
      "When did Ana start pottery classes?",
      "What did Bram eat on his trip?",
      "Does Ana like the weather in the morning?",
      // Questions asking for a list (asksForList) rank with their own weights.
      "What activities does Ana do in pottery class?",
      "How many times did Bram travel to Lisbon?",
      // A list question's category ("sports") reaches a turn that shares no word with it ("surfing").
      "What sports does Bram do?",
    ],
  };
}

function longMemEvalShaped(): RecallFixture {
  const random = seeded(11);
  const evidence: Record<number, string> = {
    2: "I just renewed my passport, it expires in 2034 now.",
    5: "My daughter's violin recital is on the twelfth, she is playing a Vivaldi piece.",
    8: "I switched my morning run to the park loop because the river path floods.",
    // Shares the time of a question ("last week") and nothing it asks about.
    9: "I moved my desk to the window last week, the light is better there.",
  };
  const sessions: ImportSession[] = [];
  for (let s = 0; s < 10; s++) {
    const messages: ImportSession["messages"] = [];
    for (let i = 0; i < 10; i++) {
      const user = i % 2 === 0;
      const planted = user && i === 4 ? evidence[s] : undefined;
      const text = planted ?? (user ? `Can you help me with my ${filler(random, 5)}?` : `Sure. ${filler(random, 30)} ${filler(random, 30)} Let me know what else you need.`);
      messages.push({ id: `M${s}:${i}`, role: user ? "user" : "assistant", text, createdAt: new Date(Date.parse(day(s * 3)) + i * 60_000).toISOString() });
    }
    sessions.push({ sessionId: `lme-${s}`, startedAt: day(s * 3), messages });
  }
  return {
    name: "LongMemEval-shaped",
    sessions,
    queries: [
      "When does my passport expire?",
      "What piece is my daughter playing at her recital?",
      "Where do I run in the morning now?",
      "Can you recommend a recipe for soup?",
      "What did I say about the river?",
      "How many times did I run in the park?",
      // Relative time ("last week": `relativeTimeTerms`) and an order of several things (`asksForAggregate`).
      "Where did I switch my morning run to last week?",
      "What is the order of the things I renewed and switched, from earliest to latest?",
    ],
  };
}

export const RECALL_FIXTURES: readonly RecallFixture[] = [locomoShaped(), longMemEvalShaped()];

/** A hit as the contract compares it. */
export interface ContractHit {
  id: string;
  scores: { lexical: number | null; context: number | null };
}

/**
 * The ranked ids as groups of ties (hits in a row with the same lexical and context scores, to 9
 * digits), each group sorted; the last group is dropped, as the page may cut it anywhere.
 */
export function tieGroups(hits: readonly ContractHit[]): string[][] {
  const groups: { key: string; ids: string[] }[] = [];
  for (const hit of hits) {
    const key = `${hit.scores.lexical?.toFixed(9)}|${hit.scores.context?.toFixed(9)}`;
    const last = groups.at(-1);
    if (last && last.key === key) last.ids.push(hit.id);
    else groups.push({ key, ids: [hit.id] });
  }
  return groups.slice(0, -1).map((group) => group.ids.sort());
}
