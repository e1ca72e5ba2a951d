/**
 * Which stored fact a question asks about ("What is my phone number?", "เบอร์โทรของฉันคืออะไร",
 * "mera number kya hai?"), without a model. The question's subject decides the key, not any word
 * in it: "the name of my cat" asks for the cat's name (`pet.cat`), not the user's; "my order
 * number" is not "my phone number"; "my boss's name" is asked but no key holds it.
 */
import { LABELS, labelOf } from "./fact-answer.js";
import { THAI_RELATIONS, namedOneKey, PETS } from "./facts/lexicon.js";

/** What a question about the user asks for. */
export interface AskedFact {
  /** The fact key (or key family: `likes`, `dislikes`, `pet`) that answers it; undefined when none does. */
  key?: string;
  /** What was asked, in English, for a reply that says it is not known: "order number", "boss's name". */
  label: string;
}

const QUESTION =
  /\?|^(what|what's|whats|who|where|when|which|how|do you|tell me|remind me)\b|อะไร|ที่ไหน|เท่าไหร่|เท่าไร|เมื่อไหร่|ไหน|ใคร|กี่|\b(kya|kahan|kab|kaun|kitne|kitna|batao|bataiye)\b/i;
const SELF = /\b(my|i|me|am i|do i|mera|meri|mere|main|mai|mujhe|mujhko)\b|ฉัน|ผม|ดิฉัน|หนู|เรา/i;
/** A question for the value of something of the user's ("what is my X?", "mera X kya hai?"): unknown X is said to be unknown. */
const ASKS_VALUE =
  /^(?:what|which)(?:'s|s|\s+(?:is|are|was|were))\s+my\b|^(?:tell me|remind me(?:\s+of)?|do you (?:know|remember))\s+my\b|\b(?:mera|meri|mere)\s+\S+(?:\s+\S+)?\s+kya\s+(?:hai|tha|thi)\b/i;
const POSSESSIVE = "(?:my|mera|meri|mere|hamara|hamari|hamare)";
// Words that end the noun phrase a question asks about.
const PHRASE_END = new Set(
  "is are was were again please now then that which who you i do does did to for in on at from with and or called named right exactly here there if when where kya kab kahan kaun hai tha thi ka ki ke ko".split(" "),
);
const NAME_WORD = /^(?:(?:full|first|given|real)\s+)?(?:name|names|naam|nam|called|named)$/i;

// The noun phrase a question asks about, to its key. Tried in order; the phrase is lower-case.
const PHRASE_TOPICS: [string, RegExp][] = [
  ["whatsapp", /\bwhats\s?app\b/],
  ["line_id", /^line(?:\s+id)?$/],
  ["email", /^e-?mail(?:\s+(?:address|id))?$/],
  ["order_number", /^order\s*(?:number|no\.?|num|id|code|ref(?:erence)?|nambar|#)$/],
  ["phone", /^(?:(?:phone|mobile|cell|contact|telephone|tel)\s+)?(?:number|no\.?|num|nambar)$|^(?:phone|mobile|cell|telephone)$/],
  ["name", /^(?:(?:full|first|given|real)\s+)?(?:name|naam|nam)$/],
  ["birthday", /^(?:birthday|bday|b-day|date of birth|dob|birth ?date|janamdin|janmdin|janam din)$/],
  ["anniversary", /^(?:wedding\s+)?anniversary$/],
  ["age", /^(?:age|umar|umra|umr)$/],
  ["location.city", /^(?:city|current city)$/],
  ["location.country", /^(?:country|home country)$/],
  ["occupation", /^(?:job|occupation|profession|work|kaam)$/],
  ["business", /^(?:business|shop|company|store|bakery|dukaan)$/],
  ["timezone", /^time\s?zone$/],
  ["preference.language", /^preferred language$/],
  ["preference.contact", /^(?:preferred\s+)?(?:contact|way to be contacted|contact method|channel)$/],
  ["languages", /^(?:languages|native language|mother tongue|first language)$/],
  ["family.children", /^(?:kids|children|bachche|bacche)$/],
  ["dislikes", /^dislikes$/],
  ["likes", /\b(?:favou?rites?|likes)\b/],
];

// Whole-question forms, for questions with no "my <noun>" (and for Thai, written without spaces).
const MESSAGE_TOPICS: [string, RegExp][] = [
  ["whatsapp", /whats\s?app/i],
  ["line_id", /\bline\b|ไลน์/i],
  ["email", /\be-?mail\b|อีเมล/i],
  ["family.children", /\b(kids|children|bachche|bacche)\b|ลูก(?:กี่|\s*กี่)/i],
  ["preference.language", /\b(language|bhasha)\b.*\b(reply|answer|respond|talk|jawab)\b|\b(reply|answer|respond|jawab)\b.*\b(language|bhasha)\b|ตอบ.*ภาษา/i],
  ["preference.contact", /\b(contact|reach)\b|ติดต่อ/i],
  ["languages", /\blanguages?\b.*\bspeak\b|\bspeak\b.*\blanguages?\b|\bbolta|bolti\b|พูดภาษา/i],
  ["timezone", /\btime\s?zone\b|เขตเวลา/i],
  ["anniversary", /\banniversary\b|ครบรอบ/i],
  ["age", /\bhow old am i\b|\bkitne saal\b|(?:^|\s)(?:ฉัน|ผม|ดิฉัน|หนู|เรา)อายุ|อายุ(?:ของ)?(?:ฉัน|ผม|ดิฉัน|หนู|เรา)/i],
  ["birthday", /\b(birthday|born|bday|janamdin)\b|วันเกิด|(?:ฉัน|ผม|ดิฉัน|หนู|เรา)เกิด/i],
  ["order_number", /\border\s*(?:number|no\b|num|id|#)|(?:เลข|หมายเลข)(?:ที่)?\s*(?:คำสั่งซื้อ|ออเดอร์)/i],
  ["phone", /\b(phone|mobile|cell|nambar)\b|\b(?:my|mera)\s+number\b|เบอร์|หมายเลขโทรศัพท์/i],
  ["occupation", /\b(job|occupation|profession|work as|what do i do|kaam)\b|อาชีพ|ทำงานอะไร/i],
  ["business", /\b(business|shop|company|dukaan|bakery|store)\b|ร้าน|ธุรกิจ/i],
  ["location.country", /\b(country|where am i from|where i'?m from|kahan se)\b|ประเทศ|มาจากไหน/i],
  ["location.city", /\b(city|where do i live|where i live|where am i based|kahan rehta|kahan rehti|kahan rahta|kahan rahti)\b|อยู่ที่ไหน|อยู่ไหน|จังหวัด/i],
  ["dislikes", /\b(dislike|hate|don'?t like|do not like|pasand nahi|pasand nahin)\b|ไม่ชอบ|เกลียด/i],
  ["likes", /\b(like|love|enjoy|favou?rite|pasand)\b|ชอบ/i],
  ["name", /\b(?:who am i|what am i called|what do you call me)\b|\b(?:my|mera|apna)\s+naam\b|(?:^|\s)(?:ฉัน|ผม|ดิฉัน|หนู|เรา)ชื่อ|ชื่อ(?:ของ)?(?:ฉัน|ผม|ดิฉัน|หนู|เรา)/i],
];

// Thai words for the people and pets a question may be about (Thai has no "my X's"). Others memory
// keeps no fact about are named in English for the reply ("ลูกผมอายุเท่าไหร่": a child's age).
const THAI_OTHERS = new Map([["ลูก", "child"], ["เพื่อน", "friend"], ["เจ้านาย", "boss"], ["หัวหน้า", "boss"]]);
const THAI_ONES = [
  ...THAI_RELATIONS.map(([word]) => word),
  ...[...PETS.keys()].filter((word) => /[\u0E00-\u0E7F]/.test(word)),
  ...THAI_OTHERS.keys(),
];
// Not the same letters inside another word: แม่น้ำ (river), แม่บ้าน, พ่อค้า, ลูกค้า (customer), หมายเลข
// (number); nor "ลูกกี่คน" (how many children), which asks a fact of the user's.
const THAI_ONE = new RegExp(`(${THAI_ONES.sort((a, b) => b.length - a.length).join("|")})(?!น้ำ|บ้าน|ค้า|ครัว|ย|\\s*กี่)`);
const THAI_ATTRIBUTES: [RegExp, string][] = [[/อายุ/, "age"], [/วันเกิด|เกิด/, "birthday"], [/เบอร์|โทร/, "phone number"], [/อีเมล/, "email"], [/ไลน์/, "LINE ID"], [/อาชีพ|ทำงาน/, "job"]];

/** The words of `text` up to the first that ends a noun phrase, at most three. */
function phraseAt(text: string): string {
  const words: string[] = [];
  for (const word of text.toLowerCase().split(/\s+/)) {
    const bare = word.replace(/[?!.,;:]+$/, "");
    if (!bare || PHRASE_END.has(bare) || words.length === 3) break;
    words.push(bare);
    if (bare !== word) break;
  }
  return words.join(" ");
}

function keyOfPhrase(phrase: string): string | undefined {
  return PHRASE_TOPICS.find(([, pattern]) => pattern.test(phrase))?.[0] ?? Object.keys(LABELS).find((key) => LABELS[key] === phrase);
}

// Forms that ask about someone or something of the user's: each reads the owner word and what is asked of it.
const OWNED_FORMS: [RegExp, (m: RegExpExecArray) => [string, string]][] = [
  [/\bmy\s+([a-z]+)(?:'s|s'|')\s+(.+)/i, (m) => [m[1] ?? "", phraseAt(m[2] ?? "")]],
  [/\b((?:[a-z]+\s+)?[a-z]+)\s+of\s+my\s+([a-z]+)/i, (m) => [m[2] ?? "", lastWords(m[1] ?? "")]],
  [/\bmy\s+([a-z]+)\s+(?:called|named)\b/i, (m) => [m[1] ?? "", "name"]],
  [/\bhow\s+old\s+(?:is|are)\s+my\s+([a-z]+)/i, (m) => [m[1] ?? "", "age"]],
  [/\bwhen\s+(?:is|was|were)\s+my\s+([a-z]+)\s+born\b/i, (m) => [m[1] ?? "", "birthday"]],
  [new RegExp(`\\b${POSSESSIVE}\\s+([a-z]+)\\s+(?:ka|ki|ke)\\s+(.+)`, "i"), (m) => [m[1] ?? "", phraseAt(m[2] ?? "")]],
];
const MINE = new RegExp(`\\b${POSSESSIVE}\\s+(.+)`, "i");

/** The words of `text` after the last one that ends a noun phrase ("is the name" → "name"). */
function lastWords(text: string): string {
  const words = text.toLowerCase().split(/\s+/);
  const cut = words.findLastIndex((word) => PHRASE_END.has(word) || word === "the" || word === "a");
  return words.slice(cut + 1).join(" ");
}

/**
 * What is asked of `word` (an owner other than the user): its key when the question asks the
 * name of a person or pet memory names (`family.wife`, `pet.cat`, `pet` for any pet); a label with
 * no key when it asks a fact memory does not keep ("wife's birthday", "boss's name"); undefined
 * when what is asked is not a fact at all ("the price of my plan").
 */
function subjectOf(word: string, attribute: string): AskedFact | undefined {
  const key = /^pets?$/.test(word) ? "pet" : namedOneKey(word);
  if (key && (attribute === "" || NAME_WORD.test(attribute))) return { key, label: labelOf(key) };
  const what = NAME_WORD.test(attribute) ? "name" : keyOfPhrase(attribute);
  if (!what) return undefined;
  const owner = key ? labelOf(key).replace(/'s name$/, "") : word;
  return { label: `${owner}${/[^s]s$/.test(owner) ? "'" : "'s"} ${labelOf(what)}` };
}

/** The first owned subject in `message` ("my cat's name", "name of my cat", "แมวของฉันชื่ออะไร"), with where it starts. */
function ownedSubject(message: string): { index: number; asked: AskedFact | undefined } | undefined {
  let first: { index: number; asked: AskedFact | undefined } | undefined;
  for (const [pattern, read] of OWNED_FORMS) {
    const m = pattern.exec(message);
    if (!m || (first && first.index <= m.index)) continue;
    const [word, attribute] = read(m);
    first = { index: m.index, asked: subjectOf(word.toLowerCase(), attribute.toLowerCase()) };
  }
  if (first) return first;
  const thai = THAI_ONE.exec(message);
  if (!thai?.[1]) return undefined;
  const attribute = /ชื่อ|ใคร/.test(message) ? "name" : (THAI_ATTRIBUTES.find(([re]) => re.test(message))?.[1] ?? "name");
  return { index: thai.index, asked: subjectOf(THAI_OTHERS.get(thai[1]) ?? thai[1], attribute) };
}

/**
 * What a question about the user asks for (see `AskedFact`), or undefined when the message is not
 * such a question or asks something no fact answers. The subject is read first: someone or
 * something of the user's ("my wife's", "of my cat"), else the noun after "my" / "mera", else,
 * only when there is no such noun, the whole question ("Where do I live?", "ฉันชอบอะไร").
 */
export function askedFact(text: string): AskedFact | undefined {
  const message = text.trim().replace(/[\u2019\u02bc]/g, "'");
  if (!QUESTION.test(message) || !SELF.test(message)) return undefined;
  const mine = MINE.exec(message);
  const owned = ownedSubject(message);
  if (owned && (!mine || owned.index <= mine.index)) return owned.asked;
  if (mine) {
    const phrase = phraseAt(mine[1] ?? "");
    const key = keyOfPhrase(phrase) ?? (/^pets?$/.test(phrase) ? "pet" : namedOneKey(phrase));
    if (key) return { key, label: labelOf(key) };
    // "What does my wife like?": about someone else, so the user's own facts do not answer it.
    return phrase && ASKS_VALUE.test(message) ? { label: phrase } : undefined;
  }
  const key = MESSAGE_TOPICS.find(([, pattern]) => pattern.test(message))?.[0];
  return key ? { key, label: labelOf(key) } : undefined;
}

/** The fact key (or `likes` / `dislikes` / `pet`) a question about the user asks for, if any. */
export function askedFactKey(text: string): string | undefined {
  return askedFact(text)?.key;
}
