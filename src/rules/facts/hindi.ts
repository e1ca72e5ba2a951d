import { type Found, itemFact } from "./found.js";
import { BUSINESS_NOUNS, OCCUPATIONS, PETS, RELATIONS, countOf, languageOf } from "./lexicon.js";
import { isKnownPlace, placeAtStart } from "./places.js";

// Romanised Hindi is written many ways: "main/mai/mein", "hoon/hun/hu", "rehta/rahta".
const I = "(?:main|mai|mein|me|mien)";
const AM = "(?:hoon|hun|hu|hoo|hoom|हूं|हूँ)";
const IS = "(?:hai|hain|h|he|है|हैं)";
const QUESTION = /\?\s*$|\b(kya|kaun|kahan|kab|kaise|kitna|kitni|kitne|kyun|kaisa|kaisi)\b/i;
const STATES = /^(thak|thaka|thaki|khush|theek|thik|thik|pareshan|bimar|busy|free|ready|naraz|udaas|bore|bhookha|bhooki|yahan|wahan|ghar|abhi)$/i;
const NOT_NAMES = /^(ek|bhi|to|toh|sirf|ab|abhi|yahan|wahan|na|nahi|nahin|haan|ji|hi|bas|phir|bahut|accha|achha)$/i;
const HINDI_STOP = /^(se|mein|me|ka|ki|ke|ko|hai|hain|hoon|hun|aur|bhi|ek|par|pe|ab|abhi|lekin|magar|ji)$/i;

// Patterns built once, at load (not per message).
const STATED_NAME = new RegExp(`\\b(?:mera|meraa|apna)\\s+(?:naam|nam|name)\\s+(?:${IS}\\s+)?([\\p{L}][\\p{L}\\p{M}'-]*)(?:\\s+([A-Z][a-z]+))?`, "iu");
const ONLY_IS = new RegExp(`^${IS}$`, "i");
const INTRO = new RegExp(`\\b${I}\\s+([A-Z][a-z]+|[\\u0900-\\u097F]+)\\s+${AM}\\b`, "u");
const OCCUPATION_AM = new RegExp(`(?:\\b${I}\\s+(?:ek\\s+)?|,\\s*|^)((?:[a-z]+\\s+){0,2}[a-z]+)\\s+${AM}\\b`, "gi");
const KAAM = new RegExp(`\\b${I}\\s+([a-z]+)\\s+(?:ka|ki)\\s+kaam\\s+kar(?:ta|ti|te)\\s+${AM}`, "i");
const RUNS_BUSINESS = new RegExp(`\\b${I}\\s+(?:ek\\s+)?([\\w\\s]{3,40}?)\\s+(?:chala|chalata|chalati|chalate|chalaata)\\s*(?:${AM}|${IS})?`, "i");
const OWNS_BUSINESS = new RegExp(`\\b(?:meri|mera|mere|hamari|humari|hamara)\\s+(?:ek\\s+)?((?:chhoti\\s+si\\s+|badi\\s+si\\s+|apni\\s+)?[\\w\\s]{2,40}?)\\s+${IS}\\b`, "i");

function nameFacts(text: string): Found[] {
  const stated = STATED_NAME.exec(text);
  if (stated?.[1] && !ONLY_IS.test(stated[1])) {
    const surname = stated[2] && !ONLY_IS.test(stated[2]) && !isKnownPlace(stated[2]) ? ` ${stated[2]}` : "";
    return [{ key: "name", value: `${stated[1]}${surname}`, rank: 2 }];
  }
  const intro = INTRO.exec(text)?.[1];
  if (intro && !OCCUPATIONS.has(intro.toLowerCase()) && !isKnownPlace(intro) && !STATES.test(intro) && !NOT_NAMES.test(intro) && !languageOf(intro)) {
    return [{ key: "name", value: intro, rank: 1 }];
  }
  return [];
}

function occupationFacts(text: string): Found[] {
  for (const m of text.matchAll(OCCUPATION_AM)) {
    const words = (m[1] ?? "").toLowerCase().split(/\s+/).filter((w) => !HINDI_STOP.test(w));
    const last = words[words.length - 1];
    if (!last || !OCCUPATIONS.has(last)) continue;
    // Keep a qualifier that is itself English ("software engineer"), not a Hindi word.
    const qualifier = words.length > 1 && /^(software|civil|mechanical|data|senior|junior|school|college|web|graphic|freelance|private|government|sarkari|head|chief)$/.test(words[words.length - 2] ?? "");
    return [{ key: "occupation", value: qualifier ? `${words[words.length - 2]} ${last}` : last }];
  }
  const kaam = KAAM.exec(text)?.[1];
  return kaam && OCCUPATIONS.has(kaam.toLowerCase()) ? [{ key: "occupation", value: kaam.toLowerCase() }] : [];
}

function businessFacts(text: string): Found[] {
  const run = RUNS_BUSINESS.exec(text)?.[1];
  if (run && BUSINESS_NOUNS.test(run)) return [{ key: "business", value: run.trim().toLowerCase() }];
  const own = OWNS_BUSINESS.exec(text)?.[1];
  const noun = own ? BUSINESS_NOUNS.exec(own) : null;
  if (own && noun) {
    const phrase = own.replace(/^(?:chhoti\s+si|badi\s+si|apni)\s+/i, "").trim().toLowerCase();
    return [{ key: "business", value: phrase }];
  }
  return [];
}

function placeBefore(text: string, cue: RegExp, rank: number, allowUnknown: boolean): Found[] {
  for (const m of text.matchAll(cue)) {
    const before = text.slice(0, m.index).trimEnd();
    // The place is the last one to three words before the cue ("Navi Mumbai mein").
    const words = before.split(/\s+/);
    for (let n = Math.min(3, words.length); n >= 1; n -= 1) {
      const phrase = words.slice(words.length - n).join(" ");
      const place = placeAtStart(phrase, allowUnknown && n === 1 && /^[A-Z]/.test(phrase));
      if (place && place.length === phrase.length && !HINDI_STOP.test(phrase) && !languageOf(phrase)) {
        return [{ key: place.kind === "city" ? "location.city" : "location.country", value: place.name, rank }];
      }
    }
  }
  return [];
}

function familyFacts(text: string): Found[] {
  const found: Found[] = [];
  const named = /\b(?:meri|mere|mera|hamari|hamare)\s+([a-z]+)\s+(?:ka|ki|ke)\s+(?:naam|nam|name)\s+([\p{L}][\p{L}\p{M}]*)/iu.exec(text);
  const word = named?.[1]?.toLowerCase() ?? "";
  const relation = RELATIONS.get(word);
  const animal = PETS.get(word);
  const key = relation ? `family.${relation}` : animal ? `pet.${animal}` : undefined;
  if (key && named?.[2] && !ONLY_IS.test(named[2])) found.push({ key, value: named[2] });
  const kids = /\b(?:mere|hamare)\s+(\w+)\s+(?:bachche|bachhe|bacche|bache|bachchey|bachon|bete|betiyan|betiyaan)\s+(?:hain|hai)\b/i.exec(text)?.[1];
  const count = kids ? countOf(kids) : undefined;
  if (count !== undefined) found.push({ key: "family.children", value: String(count) });
  return found;
}

// "meri umar 34 saal hai", "main 34 saal ka hoon"; not "mere bete ki umar 5 saal hai" nor "main 10 minute late hoon".
const AGES = [
  new RegExp(`\\b(?:meri|mera|apni)\\s+(?:umar|umra|umr|umer|age|aayu)\\s+(\\d{1,3})\\b(?!\\s*(?:mahine|mahina|din|hafte|minute|ghante))`, "i"),
  new RegExp(`\\b${I}\\s+(\\d{1,3})\\s+(?:saal|sal|varsh|years?)(?:\\s+(?:ka|ki|ke))?\\s+${AM}`, "i"),
];

function ageFacts(text: string): Found[] {
  const age = Number(AGES.map((re) => re.exec(text)?.[1]).find(Boolean) ?? Number.NaN);
  return age >= 5 && age <= 120 ? [{ key: "age", value: String(age) }] : [];
}

function tasteFacts(text: string): Found[] {
  const found: Found[] = [];
  const m = /\b(?:mujhe|muje|mujhko|humein|hume)\s+(.+?)\s+(?:(?:bahut|bohot|bohat|kaafi|zyada|bilkul|bhi)\s+)*(nahi\s+|nahin\s+|na\s+)?(?:pasand|pasan|achha\s+lagta|accha\s+lagta|achha\s+lagti|accha\s+lagti|pyaar)\s*(nahi|nahin|na)?/i.exec(text);
  const allergy = /\b(?:mujhe|muje)\s+(.+?)\s+se\s+(?:allergy|nafrat|chid)\b/i.exec(text)?.[1];
  if (m?.[1]) {
    const kind = m[2] || m[3] ? "dislikes" : "likes";
    for (const raw of m[1].split(/\s*,\s*|\s+aur\s+|\s+ya\s+/i)) {
      const item = raw.replace(/\s+(?:bahut|bohot|kaafi|bhi)$/i, "").trim();
      if (!item || /^(aap|aapka|aapki|tum|tumhara|yeh|ye|woh|wo|iska|uska)\b/i.test(item) || languageOf(item)) continue;
      const fact = itemFact(kind, item);
      if (fact) found.push(fact);
    }
  }
  if (allergy) {
    const fact = itemFact("dislikes", allergy);
    if (fact) found.push(fact);
  }
  return found;
}

function languageFacts(text: string): Found[] {
  const found: Found[] = [];
  const reply = /\b([A-Za-z]+)\s+(?:mein|me|mai)\s+(?:hi\s+)?(?:jawab|javab|reply|baat|likho|likhiye|bolo|boliye|samjhao|batao|bataiye)/i.exec(text)?.[1];
  const wanted = reply ? languageOf(reply) : undefined;
  if (wanted) found.push({ key: "preference.language", value: wanted });
  const spoken = /\b(?:main|mai|mein|hum)\s+(.+?)\s+(?:bolta|bolti|bolte|bol\s+leta|bol\s+leti|jaanta|jaanti|janta|janti)\b/i.exec(text)?.[1];
  if (spoken) {
    const names = [...new Set(spoken.split(/\s*,\s*|\s+aur\s+|\s+/i).map(languageOf).filter((n): n is string => Boolean(n)))];
    if (names.length > 0) found.push({ key: "languages", value: names.join(", ") });
  }
  return found;
}

/** Facts a romanised-Hindi (or Hinglish) message states about its author. */
export function hindiFacts(text: string): Found[] {
  const found: Found[] = [...languageFacts(text)];
  if (QUESTION.test(text)) return found;
  found.push(...nameFacts(text), ...occupationFacts(text), ...businessFacts(text), ...familyFacts(text), ...tasteFacts(text), ...ageFacts(text));
  found.push(...placeBefore(text, /\s+(?:mein|me|mai)\s+(?:reh|rah|rehta|rehti|rehte|rahta|rahti|rahte|basa|basi|shift)/gi, 3, true));
  found.push(...placeBefore(text, /\s+(?:se|say)\s+(?:hoon|hun|hu|hain|aaya|aayi|aaye|belong)\b/gi, 1, true));
  found.push(...placeBefore(text, /\s+(?:mein|me)\b/gi, 2, false));
  return found;
}
