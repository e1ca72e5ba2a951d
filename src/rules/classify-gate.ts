import type { ClassifiedEvent, ClassifyContext } from "./event-schema.js";
import { classifyByKeywords } from "./keyword-classifier.js";
import { FIRST_PERSON_EVENT } from "../memory/ranking/first-person-event.js";
import { isRomanisedHindi } from "./text-signals.js";

/**
 * How classify_event classifies a message: `rules` never calls a model; `model` asks it every
 * message; `auto` asks it only about a message that may carry something to remember that the
 * rules cannot settle, and classifies the others locally (see {@link modelNeedOf}).
 */
export type ClassifyPolicy = "model" | "rules" | "auto";

/** Why `auto` asks the model about a message: the heaviest signal found. */
export type AskReason =
  | "correction"
  | "preference"
  | "stated_fact"
  | "first_person_event"
  | "possession"
  | "first_person"
  | "names"
  | "date"
  | "amount"
  | "long_statement";

/** Why `auto` settles a message with the local classifier alone. */
export type SettleReason = "empty" | "acknowledgement" | "greeting" | "question" | "rule_matched" | "no_signal";

/** The gate's answer: ask the model (and why), or settle the message locally (and why). */
export type ModelNeed = { ask: true; reason: AskReason } | { ask: false; reason: SettleReason };

const APOSTROPHES = /[\u2019\u02bc]/g;

// Short messages that only acknowledge, thank or greet: they hold nothing to remember.
const ACK_WORDS =
  /^(?:ok(?:ay)?|k|kk|sure|fine|great|good|nice|cool|awesome|perfect|alright|all right|right|got it|understood|noted|yes|yeah|yep|yup|no|nope|nah|thanks?|thank you(?: (?:so|very) much)?|thx|ty|cheers|appreciate(?: it)?|sounds good|will do|done|wow|haha+|lol|hmm+|oh|ah|i see|makes sense|that's (?:great|good|nice|cool|awesome|fine|it|all)|no problem|np|shukriya|dhanyavaa?d|dhanyawaa?d|theek(?: hai)?|thik(?: hai)?|accha|achha|haan|ha|ji|nahi|bas|ครับ|ค่ะ|คะ|ขอบคุณ(?:ครับ|ค่ะ|มาก)*|โอเค|ได้(?:ครับ|ค่ะ)?|ใช่|เข้าใจแล้ว)$/;
const GREETING_WORDS =
  /^(?:(?:hi|hello|hey)(?: there| all| everyone)?|hiya|yo|good (?:morning|afternoon|evening|night)|bye|goodbye|see you|see ya|take care|namaste|namaskar|salaam|สวัสดี(?:ครับ|ค่ะ)?|ลาก่อน)$/;

/** A message is only acknowledgements or greetings when every phrase of it is one. */
function phrasesOf(message: string): string[] {
  return message
    .toLowerCase()
    .split(/[\s]*[,.!;:\u2026]+[\s]*|\s+(?=(?:thanks|thank|ok|okay|bye|hi|hello|hey)\b)/u)
    .map((phrase) => phrase.replace(/(?:\p{Extended_Pictographic}|\u200d|\ufe0f|[:;()])+/gu, " ").replace(/\s+/g, " ").trim())
    .filter(Boolean);
}

const CORRECTION =
  /\b(?:actually|i meant|i mean|not anymore|no longer|i was wrong|correction|that's wrong|that's not right|changed? (?:my|it) to|instead of|update my|from now on|nahi balki|galat)\b|ไม่ใช่|จริงๆแล้ว|เปลี่ยนเป็น/i;
const PREFERENCE =
  /\b(?:i (?:really )?(?:prefer|like|love|enjoy|hate|dislike|can't stand|don't like|want you to)|my favou?rite|call me|reply in|answer in|speak to me in|remind me|always|never|pasand|chahiye)\b|ชอบ|ไม่ชอบ|อยากให้|เรียกผมว่า|เรียกฉันว่า/i;
const AMOUNT = /\d/;
const DATE_WORDS =
  /\b(?:today|tonight|tomorrow|yesterday|ago|last (?:week|month|year|night|summer|winter)|next (?:week|month|year)|this (?:week|month|weekend|year)|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july|august|september|october|november|december|birthday|anniversary|kal|parso|aaj)\b|วันนี้|พรุ่งนี้|เมื่อวาน|อาทิตย์หน้า|เดือนหน้า/i;
const QUESTION_START =
  /^(?:who|what|when|where|why|how|which|whose|whom|is|are|am|was|were|do|does|did|can|could|will|would|should|shall|may|might|have|has|had|kya|kaun|kab|kahan|kaise|kyun|kitna|kitni|kitne)\b/i;
const THAI_QUESTION = /(?:ไหม|มั้ย|หรือเปล่า|อะไร|ที่ไหน|เมื่อไร|เมื่อไหร่|ทำไม|อย่างไร|ยังไง|กี่|ใคร)\s*(?:ครับ|คะ|ค่ะ)?\s*[?]?$/;

/** The message's sentences (split after . ! ? and new lines), each trimmed. */
function sentencesOf(message: string): string[] {
  return message
    .split(/(?<=[.!?\u0964])\s+|\n+/)
    .map((sentence) => sentence.trim())
    .filter(Boolean);
}

function isQuestion(sentence: string): boolean {
  if (/\?\s*["')\]]*$/.test(sentence)) return true;
  if (THAI_QUESTION.test(sentence)) return true;
  // Romanised Hindi asks with "kya", "kitna"... anywhere; English questions start with their word.
  return QUESTION_START.test(sentence) && !/[.!]$/.test(sentence) && (isRomanisedHindi(sentence) || !/\b(?:i|we)\b/i.test(sentence.slice(0, 3)));
}

const MY_THING = /\b(?:my|our|mera|meri|mere|hamara|hamari)\s+(?!goodness\b|god\b|bad\b|pleasure\b)[\p{L}]/iu;
const SECOND_PERSON = /\b(?:you|your|you're|yours|yourself|aap|aapka|aapki|tum|tumhara)\b|คุณ/gi;
const FIRST_PERSON_WORDS =
  /\b(?:i|i'm|im|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|our|ours|us)\b|\b(?:main|mera|meri|mere|mujhe|mujhko|humne|maine|hum|hamara|hamari|humara|humari|apna|apni)\b|ผม|ฉัน|ดิฉัน|หนู|เรา/gi;
/** A name said to the one addressed, at the start ("Hey Caroline!", "Thanks, Bharat"): not news. */
const ADDRESSED = /^(?:(?:[Hh]ey|[Hh]i|[Hh]ello|[Tt]hanks|[Tt]hank you|[Ww]ow|[Oo]h|[Yy]eah|[Yy]es|[Ss]ure|[Hh]aha)[,!]?\s+)?(\p{Lu}\p{Ll}+)\s*[,!]/u;

/** How strongly a signal says the model may find something the rules cannot settle. */
const WEIGHT: Record<AskReason, number> = {
  correction: 3,
  preference: 3,
  stated_fact: 3,
  first_person_event: 2,
  possession: 2,
  first_person: 1,
  names: 1,
  date: 1,
  amount: 1,
  long_statement: 1,
};
/** Signals that count in a question too ("I just moved to Pune, can you update it?"); "my order" in "where is my order?" does not. */
const TOLD_IN_QUESTIONS: ReadonlySet<AskReason> = new Set(["correction", "preference", "stated_fact", "first_person_event"]);
const LONG_STATEMENT_WORDS = 20;
/** Signals the local classifier reads in full: names, amounts and dates. */
const FOUND_BY_RULES: ReadonlySet<AskReason> = new Set(["names", "amount", "date"]);
/** Types of the local classification whose rules say what is asked (a payment, a refund, help): what else there is, names and amounts, the rules find too. */
const SETTLED_TYPES: ReadonlySet<string> = new Set(["TRANSACTION", "REQUEST", "INQUIRY", "SUPPORT", "COMPLAINT"]);

/**
 * The score `auto` asks the model from by default: any signal. `bench:classify-policy` prints the
 * share of turns and of evidence turns asked at each score on LoCoMo and LongMemEval.
 */
export const DEFAULT_ASK_SCORE = 1;

/** What the gate reads of the local classification: its type, entities and facts. */
type LocalSignals = Pick<ClassifiedEvent, "entities" | "attributeUpdates" | "type">;

/** The signals the text shows alone, each once. */
function textSignalsOf(text: string): AskReason[] {
  const found: AskReason[] = [];
  if (CORRECTION.test(text)) found.push("correction");
  if (PREFERENCE.test(text)) found.push("preference");
  if (FIRST_PERSON_EVENT.test(text)) found.push("first_person_event");
  if (MY_THING.test(text)) found.push("possession");
  const mine = text.match(FIRST_PERSON_WORDS)?.length ?? 0;
  if (mine > 0 && mine >= (text.match(SECOND_PERSON)?.length ?? 0)) found.push("first_person");
  if (DATE_WORDS.test(text)) found.push("date");
  if (AMOUNT.test(text)) found.push("amount");
  if (text.split(/\s+/).length >= LONG_STATEMENT_WORDS) found.push("long_statement");
  return found;
}

/** The signals that need the local classification: a fact it found, a name it found other than the one addressed. */
function localSignalsOf(text: string, local: LocalSignals): AskReason[] {
  const found: AskReason[] = [];
  if (local.attributeUpdates.length > 0) found.push("stated_fact");
  const addressed = ADDRESSED.exec(text)?.[1];
  if (local.entities.some((entity) => entity.type !== "language" && entity.value !== addressed && text.includes(entity.value))) found.push("names");
  return found;
}

const weightOf = (signals: ReadonlySet<AskReason>) => [...signals].reduce((sum, signal) => sum + WEIGHT[signal], 0);
const heaviestOf = (signals: ReadonlySet<AskReason>) => [...signals].reduce((best, signal) => (WEIGHT[signal] > WEIGHT[best] ? signal : best));

/**
 * Whether the `auto` policy asks the model about `text`; `localOf` gives its local classification,
 * asked for only when the text alone does not settle the question (the keyword classifier, with
 * its date parser and name tagging, is the gate's dearest part).
 *
 * Settled locally (no model call): an empty message; acknowledgements and greetings ("thanks!",
 * "ok", "namaste"); questions (a question asks for memory more than it adds to it: its entities
 * and intent are in the local classification) unless they carry a strong signal; a request a
 * keyword rule recognised whose only signals are names, amounts or dates ("Usko 500 add karo":
 * the rules found what there is); and statements whose signals weigh less than `askScore`.
 *
 * The signals, of the sentences that are not questions: a correction, a preference, a fact the
 * rules found (3 each); something the author did or has ("I moved", "my sister": 2); the
 * correction, preference, stated fact or deed count in a question too; first person outweighing
 * second person, a name other than the one addressed ("Hey Caroline!"), a date, an amount, a long
 * statement (1 each). The reason given is the heaviest signal found: when the text's own signals
 * reach `askScore` with one the rules do not read (not a name, amount or date), the model is asked
 * at once, without the local classification. English, romanised Hindi and Thai.
 */
export function modelNeedOf(text: string, localOf: () => LocalSignals, askScore = DEFAULT_ASK_SCORE): ModelNeed {
  const message = text.trim().replace(APOSTROPHES, "'");
  if (!message) return { ask: false, reason: "empty" };
  const phrases = phrasesOf(message);
  if (phrases.length === 0 || phrases.every((phrase) => ACK_WORDS.test(phrase) || GREETING_WORDS.test(phrase))) {
    return { ask: false, reason: phrases.some((phrase) => GREETING_WORDS.test(phrase)) ? "greeting" : "acknowledgement" };
  }
  const sentences = sentencesOf(message);
  const statements = sentences.filter((sentence) => !isQuestion(sentence)).join("\n");
  const questions = sentences.filter(isQuestion).join("\n");
  const told = (found: AskReason[]) => found.filter((signal) => TOLD_IN_QUESTIONS.has(signal));
  const signals = new Set([...textSignalsOf(statements), ...told(textSignalsOf(questions))]);
  const settledByText = weightOf(signals) >= askScore && [...signals].some((signal) => !FOUND_BY_RULES.has(signal));
  if (settledByText) return { ask: true, reason: heaviestOf(signals) };
  const local = localOf();
  for (const signal of [...localSignalsOf(statements, local), ...told(localSignalsOf(questions, local))]) signals.add(signal);
  const settle = statements ? "no_signal" : "question";
  if (signals.size === 0) return { ask: false, reason: settle };
  if (SETTLED_TYPES.has(local.type) && [...signals].every((signal) => FOUND_BY_RULES.has(signal))) return { ask: false, reason: "rule_matched" };
  if (weightOf(signals) < askScore) return { ask: false, reason: settle };
  return { ask: true, reason: heaviestOf(signals) };
}

/** Why a message was classified the way it was: the gate's reason, or the policy's. */
export type ClassifyReason = AskReason | SettleReason | "policy_model" | "policy_rules" | "no_model";

/** How one message is to be classified: by the model (`ask`) or by the local classification `local`, and why. */
export interface ClassificationPlan {
  ask: boolean;
  reason: ClassifyReason;
  /** The keyword classification, when it was made (when the gate needed it, or no model is asked). */
  local: ClassifiedEvent | null;
}

/**
 * How `policy` classifies `text` when a model is (`hasModel`) or is not there: `model` asks it,
 * `rules` (or no model) never does, `auto` asks as {@link modelNeedOf} says (classifying locally
 * when the gate needs it; the caller classifies locally when `local` is null and no model answers).
 */
export function planClassification(policy: ClassifyPolicy, hasModel: boolean, text: string, context: ClassifyContext): ClassificationPlan {
  if (!hasModel || policy === "rules") return { ask: false, reason: policy === "rules" ? "policy_rules" : "no_model", local: classifyByKeywords(text, context) };
  if (policy === "model") return { ask: true, reason: "policy_model", local: null };
  let local: ClassifiedEvent | null = null;
  const need = modelNeedOf(text, () => (local ??= classifyByKeywords(text, context)));
  return { ask: need.ask, reason: need.reason, local };
}
