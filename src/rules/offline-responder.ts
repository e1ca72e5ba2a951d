import { clip } from "../memory/clip.js";
import { type KnownFact, answerFromFacts } from "./fact-answer.js";
import { askedFact } from "./fact-question.js";
import { detectLanguage, latinWords } from "./text-signals.js";

export type { KnownFact } from "./fact-answer.js";

/** What memory recalled for this turn, as plain strings (and the current facts, structured). */
export interface RecalledForReply {
  summaries: string[];
  facts: string[];
  similar: string[];
  events: string[];
  known?: KnownFact[];
}

const SHOWN = 3;
const ITEM_CHARS = 160;
const NO_MODEL =
  "No language model is configured, so this reply comes from the offline responder. " +
  "Set OPENAI_API_KEY (or OPENAI_BASE_URL for an OpenAI-compatible server) to get real answers.";

/** Up to three recalled memories that share the most words with the message (facts first on ties). */
function mostRelevant(message: string, recalled: RecalledForReply): string[] {
  // The message's `latinWords` longer than two letters, found without listing the shorter ones.
  const words = new Set(message.toLowerCase().match(/[a-z']{3,}/g));
  // Each run of Thai in the message counts once per time it occurs: a long message repeats many.
  const thai = new Map<string, number>();
  for (const run of message.match(/[\u0E00-\u0E7F]{2,}/g) ?? []) thai.set(run, (thai.get(run) ?? 0) + 1);
  const overlap = (item: string): number => {
    let shared = latinWords(item).filter((w) => words.has(w)).length;
    for (const [run, times] of thai) if (item.includes(run)) shared += times;
    return shared;
  };
  const pool = [
    ...recalled.facts.map((text, i) => ({ text, rank: 3, order: i })),
    ...recalled.similar.map((text, i) => ({ text, rank: 2, order: i })),
    ...recalled.events.map((text, i) => ({ text, rank: 1, order: i })),
    ...recalled.summaries.slice(0, 1).map((text, i) => ({ text, rank: 0, order: i })),
  ].filter((item) => item.text.trim());
  const scored = pool.map((item) => ({ ...item, score: overlap(item.text) }));
  const relevant = scored.filter((item) => item.score > 0);
  // The similar-message search already ranks by relevance; with no word in common, trust it.
  const chosen = (relevant.length > 0 ? relevant : scored.filter((item) => item.rank === 2))
    .sort((a, b) => b.score - a.score || b.rank - a.rank || a.order - b.order)
    .slice(0, SHOWN);
  return chosen.map((item) => clip(item.text.trim(), ITEM_CHARS));
}

/**
 * The reply when no language model is configured. A question about a stored fact ("What is my
 * phone number?") gets that fact in one sentence with when the user said it, in the language
 * of the question, only from a fact stored under the key the question asks for (`askedFact`):
 * "the name of my cat" is never answered with the user's name. A question about a fact memory
 * does not hold starts with a plain "I don't have your … in memory yet."; anything else gets
 * a plain note that no model is configured (and how to configure one) and the few recalled
 * memories most relevant to the message, or that nothing was recalled. `now` only decides
 * whether the year is shown.
 */
export function offlineReply(input: { message: string; recalled: RecalledForReply; now?: Date }): string {
  const { recalled } = input;
  const now = input.now ?? new Date();
  const asked = askedFact(input.message);
  const answer = asked?.key ? answerFromFacts(asked.key, recalled.known ?? [], now, detectLanguage(input.message)) : undefined;
  if (answer) return answer;
  const lead = asked ? `I don't have your ${asked.label} in memory yet. ${NO_MODEL}` : NO_MODEL;
  const memories = mostRelevant(input.message, recalled);
  const body = memories.length > 0 ? ["The most relevant things I remember:", ...memories.map((m) => `  - ${m}`)] : ["Memory recalled nothing for this message yet."];
  return [lead, ...body].join("\n");
}
