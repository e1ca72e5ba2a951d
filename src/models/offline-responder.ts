import { clip } from "../memory/clip.js";
import { askedFactKey } from "./fact-question.js";
import { latinWords } from "./text-signals.js";

/** A current fact as the offline responder sees it: key, value and since when it is known. */
export interface KnownFact {
  key: string;
  value: string;
  validFrom: string;
}

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
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const LABELS: Record<string, string> = {
  name: "name", phone: "phone number", email: "email", line_id: "LINE ID", whatsapp: "WhatsApp", "location.city": "city",
  "location.country": "country", occupation: "occupation", business: "business", timezone: "time zone",
  birthday: "birthday", anniversary: "anniversary", languages: "languages", "preference.language": "preferred language",
  "preference.contact": "preferred way to be contacted",
};
const NO_MODEL =
  "No language model is configured, so this reply comes from the offline responder. " +
  "Set OPENAI_API_KEY (or OPENAI_BASE_URL for an OpenAI-compatible server) to get real answers.";

function toldOn(iso: string, now: Date): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "earlier";
  const day = `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]}`;
  return date.getUTCFullYear() === now.getUTCFullYear() ? day : `${day} ${date.getUTCFullYear()}`;
}

/** "03-14" → "14 March", "1990-07-02" → "2 July 1990"; anything else as it is. */
function readableDay(value: string): string {
  const m = /^(?:(\d{4})-)?(\d{2})-(\d{2})$/.exec(value);
  const month = m ? MONTH_NAMES[Number(m[2]) - 1] : undefined;
  if (!m || !month) return value;
  return `${Number(m[3])} ${month}${m[1] ? ` ${m[1]}` : ""}`;
}

function listed(values: readonly string[]): string {
  return values.length <= 1 ? (values[0] ?? "") : `${values.slice(0, -1).join(", ")} and ${values[values.length - 1]}`;
}

/** One sentence stating what memory holds for `asked`, or undefined when it holds nothing. */
function statement(asked: string, known: readonly KnownFact[], now: Date): string | undefined {
  const matches = known.filter((fact) => (asked === "likes" || asked === "dislikes" ? fact.key.startsWith(`${asked}.`) : fact.key === asked));
  const newest = [...matches].sort((a, b) => b.validFrom.localeCompare(a.validFrom))[0];
  if (!newest) return undefined;
  const source = `you told me on ${toldOn(newest.validFrom, now)}`;
  const value = asked === "birthday" || asked === "anniversary" ? readableDay(newest.value) : newest.value;
  if (asked === "likes" || asked === "dislikes") {
    return `You ${asked === "likes" ? "like" : "dislike"} ${listed(matches.map((f) => f.value))} — ${source}.`;
  }
  if (asked === "family.children") return `You have ${value} children — ${source}.`;
  if (asked.startsWith("family.")) return `Your ${asked.slice("family.".length)} is ${value} — ${source}.`;
  if (asked === "languages") return `You speak ${value} — ${source}.`;
  return `Your ${LABELS[asked] ?? asked.replace(/[._]/g, " ")} is ${value} — ${source}.`;
}

/** Up to three recalled memories that share the most words with the message (facts first on ties). */
function mostRelevant(message: string, recalled: RecalledForReply): string[] {
  const words = new Set(latinWords(message).filter((w) => w.length > 2));
  const thai = message.match(/[\u0E00-\u0E7F]{2,}/g) ?? [];
  const overlap = (item: string): number =>
    latinWords(item).filter((w) => words.has(w)).length + thai.filter((t) => item.includes(t)).length;
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
 * phone number?") gets that fact in one sentence with when the user said it; anything else gets
 * a plain note that no model is configured (and how to configure one) and the few recalled
 * memories most relevant to the message, or that nothing was recalled. `now` only decides
 * whether the year is shown.
 */
export function offlineReply(input: { message: string; recalled: RecalledForReply; now?: Date }): string {
  const { recalled } = input;
  const now = input.now ?? new Date();
  const asked = askedFactKey(input.message);
  const answer = asked ? statement(asked, recalled.known ?? [], now) : undefined;
  if (answer) return answer;
  const lead = asked
    ? `I don't have your ${LABELS[asked] ?? asked.replace(/^family\./, "").replace(/[._]/g, " ")} in memory yet. ${NO_MODEL}`
    : NO_MODEL;
  const memories = mostRelevant(input.message, recalled);
  const body = memories.length > 0 ? ["The most relevant things I remember:", ...memories.map((m) => `  - ${m}`)] : ["Memory recalled nothing for this message yet."];
  return [lead, ...body].join("\n");
}
