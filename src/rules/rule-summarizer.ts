import { detectAttributeUpdates } from "./attribute-detect.js";
import { clip } from "../memory/clip.js";
import { factText } from "../memory/facts.js";
import { extractEntities } from "./text-signals.js";

/** One transcript message as the summarizers see it. */
export interface SummaryMessage {
  role: "user" | "assistant";
  text: string;
  id: string;
}

/** Limits for a summary: at most `maxBullets` bullets and about `maxChars` characters in all. */
export interface SummaryOptions {
  maxBullets?: number;
  maxChars?: number;
}

/** A summary as bullets, and the same bullets joined as "- …" lines. */
export interface RuleSummary {
  text: string;
  bullets: string[];
}

interface Candidate {
  order: number;
  score: number;
  ids: string[];
  render: (max: number) => string;
}

const MIN_BULLETS = 4;
/**
 * Characters of each message the rule summarizer reads (the rest is ignored): bullets are short,
 * and looking for key sentences through long pastes would make one summary cost seconds of CPU.
 */
export const SUMMARY_SOURCE_CHARS = 1_000;
const FACT_BULLET_CHARS = 200;
const QUESTION =
  /\?|^(what|who|where|when|why|how|which|is|are|can|could|do|does|will|should)\b|ไหม|มั้ย|อะไร|เท่าไหร่|เท่าไร|ยังไง|\b(kya|kitna|kitni|kaise|kab|kahan|kaun)\b/i;
const DECISION =
  /\b(decided|decide|agreed?|confirm(ed|s)?|will|going to|booked|ordered|cancel(l?ed)?|approved|deadline|planned|chose|settled|scheduled)\b|ตกลง|ยืนยัน|ตัดสินใจ|\b(pakka|tay)\b/i;
// What is not conversation: the offline responder's canned text, and summaries or recalled
// memory quoted back ("- …" bullets, "Q: … → A: …", "User: …").
const BOILERPLATE =
  /no language model is configured|offline responder|OPENAI_API_KEY|here is what memory recalled|memory recalled nothing|^you said: "|^(?:- |• )|^(?:user|assistant|q):\s|→ A:/im;

/** True for text that is not conversation to summarize: offline boilerplate or quoted memory. */
export function isBoilerplate(text: string): boolean {
  return BOILERPLATE.test(text.trim());
}

function weight(text: string): number {
  let score = 0;
  if (/\d/.test(text)) score += 2;
  if (DECISION.test(text)) score += 1.5;
  if (extractEntities(text).some((e) => e.type === "person" || e.type === "place")) score += 1;
  return score;
}

function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0 && !isBoilerplate(s));
}

/** The facts the user stated, newest value per key, as "Stated: …" bullets of bounded length. */
function factCandidates(messages: readonly SummaryMessage[]): Candidate[] {
  const latest = new Map<string, { text: string; id: string; order: number }>();
  messages.forEach((message, index) => {
    if (message.role !== "user") return;
    for (const fact of detectAttributeUpdates(message.text)) {
      latest.delete(fact.key);
      latest.set(fact.key, { text: factText(fact.key, fact.value), id: message.id, order: index });
    }
  });
  const groups: { parts: string[]; ids: string[]; order: number }[] = [];
  for (const fact of latest.values()) {
    const group = groups[groups.length - 1];
    if (group && [...group.parts, fact.text].join("; ").length <= FACT_BULLET_CHARS) {
      group.parts.push(fact.text);
      group.ids.push(fact.id);
    } else {
      groups.push({ parts: [fact.text], ids: [fact.id], order: -1 + groups.length / 100 });
    }
  }
  // Fact bullets come first and are not clipped: they are what the user asked us to remember.
  return groups.map((group) => ({ order: group.order, score: 100, ids: [], render: () => `Stated: ${group.parts.join("; ")}` }));
}

function candidatesOf(messages: readonly SummaryMessage[]): Candidate[] {
  const found: Candidate[] = [];
  messages.forEach((message, index) => {
    const statesFacts = message.role === "user" && detectAttributeUpdates(message.text).length > 0;
    const next = messages[index + 1];
    if (message.role === "user" && QUESTION.test(message.text) && !statesFacts) {
      const answered = next?.role === "assistant" && next.text.trim() !== "";
      found.push({
        order: index,
        score: 2 + weight(message.text) + (answered ? weight(next.text) : 0),
        ids: answered ? [message.id, next.id] : [message.id],
        render: (max) => {
          if (!answered) return `Asked: ${clip(message.text, max - 7)}`;
          const q = Math.max(20, Math.floor(max * 0.4));
          return `Q: ${clip(message.text, q)} → A: ${clip(next.text, Math.max(20, max - q - 9))}`;
        },
      });
    }
    if (statesFacts) return;
    for (const sentence of sentencesOf(message.text)) {
      const score = weight(sentence);
      if (score === 0) continue;
      const who = message.role === "user" ? "User" : "Assistant";
      found.push({ order: index + 0.5, score: 1 + score, ids: [message.id], render: (max) => `${who}: ${clip(sentence, max - who.length - 2)}` });
    }
  });
  return found;
}

function fillers(messages: readonly SummaryMessage[]): Candidate[] {
  return messages
    .map((message, index) => ({ message, index }))
    .filter(({ message }) => message.text.trim().length > 0)
    .map(({ message, index }) => {
      const who = message.role === "user" ? "User" : "Assistant";
      return { order: index, score: 0, ids: [message.id], render: (max: number) => `${who}: ${clip(message.text, max - who.length - 2)}` };
    });
}

/**
 * Summarizes a transcript without a model: first the facts the user stated ("Stated: name: Tom;
 * phone: 555-0100", newest value per key, never clipped), then question/answer pairs ("Q: … →
 * A: …"), open questions ("Asked: …") and key points (sentences with numbers, names, places or
 * decisions), best first, put back in transcript order. The offline responder's boilerplate and
 * quoted summaries are left out; only the first `SUMMARY_SOURCE_CHARS` characters of each message
 * are read. Gives 4–6 bullets when the transcript has that much to say
 * (never more than `maxBullets`, default 6), never an empty summary for non-empty input, and the
 * same output for the same input.
 */
export function summarizeByRules(messages: readonly SummaryMessage[], options: SummaryOptions = {}): RuleSummary {
  const maxBullets = Math.max(1, options.maxBullets ?? 6);
  const maxChars = Math.max(80, options.maxChars ?? 720);
  if (messages.length === 0) return { text: "", bullets: [] };
  const read = messages.map((m) => (m.text.length > SUMMARY_SOURCE_CHARS ? { ...m, text: m.text.slice(0, SUMMARY_SOURCE_CHARS) } : m));
  const conversation = read.filter((message) => !isBoilerplate(message.text));

  const facts = factCandidates(conversation).slice(0, maxBullets);
  const ranked = candidatesOf(conversation).sort((a, b) => b.score - a.score || a.order - b.order);
  const chosen: Candidate[] = [...facts];
  const covered = new Set<string>();
  const take = (pool: Candidate[], limit: number): void => {
    for (const candidate of pool) {
      if (chosen.length >= limit) return;
      if (candidate.ids.some((id) => covered.has(id))) continue;
      chosen.push(candidate);
      candidate.ids.forEach((id) => covered.add(id));
    }
  };
  take(ranked, maxBullets);
  if (chosen.length < Math.min(MIN_BULLETS, maxBullets)) take(fillers(conversation), Math.min(MIN_BULLETS, maxBullets));

  chosen.sort((a, b) => a.order - b.order);
  const factChars = facts.reduce((sum, c) => sum + c.render(0).length + 3, 0);
  const others = Math.max(1, chosen.length - facts.length);
  const perBullet = Math.max(40, Math.floor((maxChars - factChars) / others) - 3);
  const bullets = chosen.map((c) => c.render(perBullet));
  if (bullets.length === 0) bullets.push(`${messages.length} message(s), none of them conversation to keep`);
  return { text: bullets.map((b) => `- ${b}`).join("\n"), bullets };
}
