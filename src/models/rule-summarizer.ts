import { detectAttributeUpdates } from "./attribute-detect.js";
import { clip } from "../memory/clip.js";
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
const QUESTION =
  /\?|^(what|who|where|when|why|how|which|is|are|can|could|do|does|will|should)\b|ไหม|มั้ย|อะไร|เท่าไหร่|เท่าไร|ยังไง|\b(kya|kitna|kitni|kaise|kab|kahan|kaun)\b/i;
const DECISION =
  /\b(decided|decide|agreed?|confirm(ed|s)?|will|going to|booked|ordered|cancel(l?ed)?|approved|deadline|planned|chose|settled|scheduled)\b|ตกลง|ยืนยัน|ตัดสินใจ|\b(pakka|tay)\b/i;

function weight(text: string): number {
  let score = 0;
  if (/\d/.test(text)) score += 2;
  if (DECISION.test(text)) score += 1.5;
  if (extractEntities(text).some((e) => e.type === "person")) score += 1;
  if (detectAttributeUpdates(text).length > 0) score += 2;
  return score;
}

function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

function candidatesOf(messages: readonly SummaryMessage[]): Candidate[] {
  const found: Candidate[] = [];
  messages.forEach((message, index) => {
    const next = messages[index + 1];
    if (message.role === "user" && QUESTION.test(message.text) && next?.role === "assistant" && next.text.trim()) {
      found.push({
        order: index,
        score: 2 + weight(message.text) + weight(next.text),
        ids: [message.id, next.id],
        render: (max) => {
          const q = Math.max(20, Math.floor(max * 0.4));
          return `Q: ${clip(message.text, q)} → A: ${clip(next.text, Math.max(20, max - q - 9))}`;
        },
      });
    }
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
 * Summarizes a transcript without a model: question/answer pairs ("Q: … → A: …") and key
 * points (sentences with numbers, names, decisions or user facts), best first, then put
 * back in transcript order; only the first `SUMMARY_SOURCE_CHARS` characters of each message are
 * read. Gives 4–6 bullets when the transcript has that much to say
 * (never more than `maxBullets`, default 6), never an empty summary for non-empty input,
 * and the same output for the same input.
 */
export function summarizeByRules(messages: readonly SummaryMessage[], options: SummaryOptions = {}): RuleSummary {
  const maxBullets = Math.max(1, options.maxBullets ?? 6);
  const maxChars = Math.max(80, options.maxChars ?? 720);
  if (messages.length === 0) return { text: "", bullets: [] };
  const read = messages.map((m) => (m.text.length > SUMMARY_SOURCE_CHARS ? { ...m, text: m.text.slice(0, SUMMARY_SOURCE_CHARS) } : m));

  const ranked = candidatesOf(read).sort((a, b) => b.score - a.score || a.order - b.order);
  const chosen: Candidate[] = [];
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
  if (chosen.length < Math.min(MIN_BULLETS, maxBullets)) take(fillers(read), Math.min(MIN_BULLETS, maxBullets));

  chosen.sort((a, b) => a.order - b.order);
  const perBullet = Math.max(40, Math.floor(maxChars / Math.max(1, chosen.length)) - 3);
  const bullets = chosen.map((c) => c.render(perBullet));
  if (bullets.length === 0) bullets.push(`${messages.length} message(s) with no text`);
  return { text: bullets.map((b) => `- ${b}`).join("\n"), bullets };
}
