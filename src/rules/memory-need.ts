import type { MemoryNeedReason } from "../memory/memory-plan.js";
import { isKnownPlace } from "./facts/places.js";
import { hasPronoun } from "./text-signals.js";

/**
 * Whether a message needs memory, decided locally with a few patterns (English, Thai, romanised
 * Hindi), no model: it refers to what came before ("as I said", "that one", "yes please"), or it
 * is about the user or someone memory may know ("my", "I", "ฉัน", "mera", a name that is not a known place). Anything else stands on its own ("What is the
 * capital of France?", "hello"). In doubt it says memory is needed: a false "needed" costs a
 * search, a false "not needed" costs an answer that forgot something.
 */

const REFERS_BACK =
  /\b(again|earlier|before|previous(ly)?|last time|remember|recall|you (said|told|mentioned|suggested|recommended)|we (talked|discussed|spoke)|as i (said|mentioned)|continue|same|above|the other|instead|also|too|more|did|was|were|had|ago|yesterday|last (night|week|month|year))\b|เมื่อกี้|ก่อนหน้า|ที่แล้ว|จำได้|อีกครั้ง|อีก|\b(pehle|yaad|phir se|dobara)\b/i;
const ABOUT_USER = /\b(i|my|mine|myself|about me|for me|i'm|im|i've|i'd|i'll|we|us|our|ours)\b|ฉัน|ผม|ดิฉัน|หนู|ของเรา|\b(mera|meri|mere|mujhe|main|hum|hamara|humara)\b/i;
/** A short answer only makes sense after something: "yes", "no thanks", "why?", "ok do it". */
const SHORT_REPLY = /^(yes|yeah|yep|no|nope|ok|okay|sure|why|how|and|so|then|please|do it|go on|haan|nahi|ใช่|ไม่|ครับ|ค่ะ|ทำไม)\b/i;
/** A capitalised word inside a sentence ("When did Caroline move?"): a name memory may know, unless a known place. */
const NAME_INSIDE = /[^.!?\s]\s+(?!I\b)(\p{Lu}\p{Ll}+)/gu;
const GREETING = /^(hi|hello|hey|good (morning|afternoon|evening)|thanks|thank you|bye|สวัสดี|ขอบคุณ|namaste)\b/i;

/** Why `text` needs memory, or `standalone` when it does not. Pure and cheap (a handful of regular expressions). */
export function memoryNeedOf(text: string): MemoryNeedReason {
  const message = text.trim().replace(/[\u2019\u02bc]/g, "'");
  if (!message) return "standalone";
  if (REFERS_BACK.test(message) || hasPronoun(message)) return "refers_back";
  if (ABOUT_USER.test(message) || namesSomeone(message)) return "about_user";
  const words = message.split(/\s+/).length;
  if (words <= 4 && SHORT_REPLY.test(message) && !GREETING.test(message)) return "refers_back";
  return "standalone";
}

function namesSomeone(message: string): boolean {
  return [...message.matchAll(NAME_INSIDE)].some((match) => !isKnownPlace(match[1] ?? ""));
}
