import { nlp } from "../memory/language-tools.js";
import type { EventEntity } from "./event-schema.js";
import { THAI_PLACES } from "./facts/lexicon.js";
import { isKnownPlace } from "./facts/places.js";

const THAI_SCRIPT = /[\u0E00-\u0E7F]/;
const DEVANAGARI = /[\u0900-\u097F]/;

// Words that are nearly always romanised Hindi count twice; short words that also occur in
// other languages ("ka", "se") count once, so one of them alone does not make a message Hindi.
const HINDI_STRONG = new Set([
  "hai", "hain", "kitna", "kitni", "kitne", "karo", "karna", "usko", "isko", "uska", "iska", "unko",
  "unka", "mera", "meri", "mere", "kya", "kyun", "kaise", "kahan", "nahi", "nahin", "mujhe", "chahiye",
  "batao", "bataiye", "dijiye", "bhejo", "naam", "haan", "accha", "achha", "theek", "thik", "shukriya",
  "dhanyavad", "dhanyawad", "paisa", "paise", "aap", "aapka", "tumhara", "hamara", "woh", "raha", "rahi",
  "hoon", "hun", "rehta", "rehti", "rahta", "rahti", "karta", "karti", "bolta", "bolti", "chalata", "chalati", "pasand",
  "bachche", "humari", "hamari", "naya", "nayi", "janamdin", "dukaan", "mausam", "kripya", "bahut", "lekin",
]);
const HINDI_WEAK = new Set(["ka", "ki", "ke", "ko", "se", "ye", "yeh", "wo", "tum", "hum", "mein", "aur", "bhi", "kab", "kaun"]);

/** Lower-case word tokens of the Latin-script part of a text. */
export function latinWords(text: string): string[] {
  return text.toLowerCase().match(/[a-z']+/g) ?? [];
}

/** "th" for Thai script, "hi" for Devanagari or romanised Hindi, else "en". */
export function detectLanguage(text: string): string {
  if (THAI_SCRIPT.test(text)) return "th";
  if (DEVANAGARI.test(text)) return "hi";
  return isRomanisedHindi(text) ? "hi" : "en";
}

/** True when enough common romanised-Hindi words appear (a score of at least 2). */
export function isRomanisedHindi(text: string): boolean {
  let score = 0;
  for (const word of latinWords(text)) {
    if (HINDI_STRONG.has(word)) score += 2;
    else if (HINDI_WEAK.has(word)) score += 1;
    if (score >= 2) return true;
  }
  return false;
}

const PRONOUN_LATIN = /\b(it|him|her|that|them|usko|isko|uska|iska|unko|unka|inko|woh|wo|ye|yeh|use|ise)\b/gi;
const PRONOUN_THAI = /เขา|มัน|อันนั้น|คนนั้น|เธอ|พวกเขา/;

/** True when the text refers back with a pronoun (English, romanised Hindi or Thai). */
export function hasPronoun(text: string): boolean {
  if (PRONOUN_THAI.test(text)) return true;
  const hindi = isRomanisedHindi(text);
  // "use" is also an English verb; it counts only when the message reads as Hindi.
  return [...text.matchAll(PRONOUN_LATIN)].some((m) => hindi || !/^(use|ise)$/i.test(m[1] ?? ""));
}

const LANGUAGE_NAMES = new Set(["English", "Thai", "Hindi", "Chinese", "Japanese", "French", "German", "Spanish"]);
const NOT_NAMES = new Set([
  "I", "I'm", "I'd", "I'll", "I've", "OK", "Ok", "Mr", "Mrs", "Ms", "Dr", "Sir", "Madam", "Please", "Thanks",
  "Thank", "Hi", "Hello", "Hey", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
  "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
  "November", "December", "The", "This", "That", "It", "My", "Your", "We", "You",
]);
// Before a Hindi possessive these are things, not people ("order ka status").
const NOT_POSSESSORS = new Set([
  "order", "account", "product", "payment", "balance", "delivery", "bill", "phone", "number", "ghar", "aaj",
  "kal", "is", "us", "iss", "uss", "mera", "meri", "tera", "aap", "sab", "paise", "paisa", "item", "price",
]);

/** Types of names seen lately: the same names recur turn after turn, and tagging one is not free. */
const typesOfNames = new Map<string, string>();
const NAME_CACHE_SIZE = 2_000;

/** "place" for a known or compromise-tagged place, "organization" for an organisation, else "person". */
function entityTypeOf(name: string): string {
  let type = typesOfNames.get(name);
  if (type === undefined) {
    type = typeOfName(name);
    if (typesOfNames.size >= NAME_CACHE_SIZE) typesOfNames.clear();
    typesOfNames.set(name, type);
  }
  return type;
}

function typeOfName(name: string): string {
  if (isKnownPlace(name)) return "place";
  const doc = nlp()(name);
  if (doc.has("#Place") && !doc.has("#Person")) return "place";
  if (doc.has("#Organization")) return "organization";
  return "person";
}

function addEntity(list: EventEntity[], entity: EventEntity): void {
  if (!list.some((e) => e.type === entity.type && e.value.toLowerCase() === entity.value.toLowerCase())) {
    list.push(entity);
  }
}

/**
 * Named entities found by surface rules: capitalised words not at a sentence start (runs of
 * them become one name, typed as a place, an organisation or a person), Thai place names, any word before a romanised-Hindi possessive ("Bharat ka"), language
 * names, and order numbers. `exclude` drops values such as the user's own name.
 */
export function extractEntities(text: string, exclude: readonly string[] = []): EventEntity[] {
  const found: EventEntity[] = [];
  const skip = new Set(exclude.map((v) => v.toLowerCase()));
  const possessive = /\b([A-Za-z][a-z]+)\s+(?:ka|ki|ke)\b/g;
  for (const m of text.matchAll(possessive)) {
    const word = m[1] ?? "";
    if (NOT_POSSESSORS.has(word.toLowerCase()) || HINDI_STRONG.has(word.toLowerCase())) continue;
    if (word[0] === word[0]?.toUpperCase()) addEntity(found, { type: "person", value: word });
  }
  for (const sentence of text.split(/[.!?\n;:]+/)) {
    const tokens = sentence.trim().split(/[\s,()"]+/).filter(Boolean);
    let run: string[] = [];
    const flush = (): void => {
      if (run.length > 0) addEntity(found, { type: entityTypeOf(run.join(" ")), value: run.join(" ") });
      run = [];
    };
    tokens.forEach((token, index) => {
      const word = token.replace(/'s$/, "");
      if (LANGUAGE_NAMES.has(word)) {
        flush();
        addEntity(found, { type: "language", value: word });
      } else if ((index > 0 || isKnownPlace(word)) && /^[A-Z][a-z]+(?:-[A-Z][a-z]+)?$/.test(word) && !NOT_NAMES.has(word)) {
        run.push(word);
      } else {
        flush();
      }
    });
    flush();
  }
  for (const place of THAI_PLACES) {
    if (text.includes(place.name) && !found.some((e) => e.value.includes(place.name))) addEntity(found, { type: "place", value: place.name });
  }
  for (const orderId of findOrderIds(text)) addEntity(found, orderId);
  return found.filter((e) => !skip.has(e.value.toLowerCase()));
}

/** Order numbers ("order 1005", "order no. A-1234", "#55123"), as `order_id` entities, each once. */
export function findOrderIds(text: string): EventEntity[] {
  const found: EventEntity[] = [];
  for (const m of text.matchAll(/(?:\border\s*(?:no\.?|number|#)?\s*|#)([A-Z0-9-]*\d[A-Z0-9-]{3,})\b/gi)) {
    addEntity(found, { type: "order_id", value: m[1] ?? "" });
  }
  return found;
}

const CURRENCIES: [RegExp, string][] = [
  [/^(baht|บาท|thb|฿)$/i, "THB"],
  [/^(rs\.?|rupees?|inr|₹)$/i, "INR"],
  [/^(usd|dollars?|\$)$/i, "USD"],
  [/^(eur|euros?|€)$/i, "EUR"],
  [/^(gbp|pounds?|£)$/i, "GBP"],
];

/**
 * The first standalone amount in the text, with its currency when one is written next to it.
 * Callers remove phone numbers, e-mails and order numbers first.
 */
export function extractAmount(text: string): { amount: number; currency?: string } | undefined {
  const pattern =
    /(?<![\w.,#-])([$€£฿₹])?\s?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\w.,-]*\d)\s*(baht|บาท|thb|rs\.?|rupees?|inr|usd|dollars?|eur|euros?|gbp|pounds?)?/i;
  const m = pattern.exec(text);
  if (!m) return undefined;
  const amount = Number(`${(m[2] ?? "").replace(/,/g, "")}${m[3] ? `.${m[3]}` : ""}`);
  if (!Number.isFinite(amount)) return undefined;
  const symbol = m[1] ?? m[4];
  const currency = symbol ? CURRENCIES.find(([re]) => re.test(symbol))?.[1] : undefined;
  return currency ? { amount, currency } : { amount };
}
