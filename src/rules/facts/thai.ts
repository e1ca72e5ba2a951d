import { type Found, itemFact } from "./found.js";
import { PETS, THAI_PLACES, THAI_RELATIONS, countOf, languageOf } from "./lexicon.js";
import { placeAtStart } from "./places.js";

// Thai writes no spaces between words, so a value runs until a space, a particle or a word
// that starts the next clause.
const PRONOUN = "(?:ผม|ฉัน|ดิฉัน|หนู|เรา|กู|เค้า|ชั้น)";
const PARTICLES = /(?:ครับผม|ครับ|ค่ะ|คะ|นะคะ|นะครับ|นะ|จ้ะ|จ้า|ค่า|จ้ะ|คับ|ค่าา|งับ)+$/;
const CLAUSE_WORDS = "อยู่|ทำงาน|เป็น|และ|แต่|กับ|ครับ|ค่ะ|คะ|นะ|อายุ|จาก|เบอร์|ที่|ได้|แล้ว|ด้วย|มาก|เลย|ค่า|คับ|จ้า";
const UNTIL_CLAUSE = new RegExp(`^([\\u0E00-\\u0E7F]+?)(?=${CLAUSE_WORDS}|[^\\u0E00-\\u0E7F]|$)`);
const OCCUPATIONS = [
  "ครู", "อาจารย์", "หมอ", "แพทย์", "พยาบาล", "วิศวกร", "นักศึกษา", "นักเรียน", "ทนาย", "ทนายความ", "พนักงานบริษัท", "พนักงาน",
  "โปรแกรมเมอร์", "คนขับรถ", "เกษตรกร", "ชาวนา", "แม่บ้าน", "ตำรวจ", "ทหาร", "เชฟ", "พ่อครัว", "แม่ครัว", "นักบัญชี", "ช่างภาพ",
  "นักออกแบบ", "ข้าราชการ", "ฟรีแลนซ์", "เภสัชกร", "ทันตแพทย์", "สถาปนิก", "ช่างไฟ", "ช่าง", "แม่ค้า", "พ่อค้า", "นักธุรกิจ",
  "ไกด์", "นักแปล", "นักข่าว", "นักเขียน", "นักดนตรี", "ศิลปิน", "ผู้จัดการ", "เลขา", "ดีไซเนอร์", "นักวิจัย",
].sort((a, b) => b.length - a.length);
// Thai words for the people and pets a fact names, to their key ("ภรรยา" → family.wife, "แมว" → pet.cat).
const NAMED_ONES: [string, string][] = [
  ...THAI_RELATIONS.map(([word, relation]): [string, string] => [word, `family.${relation}`]),
  ...[...PETS].filter(([word]) => /[\u0E00-\u0E7F]/.test(word)).map(([word, animal]): [string, string] => [word, `pet.${animal}`]),
].sort((a, b) => b[0].length - a[0].length);
const CHANNELS = /^(ไลน์|line|อีเมล|อีเมล์|email|โทร|โทรศัพท์|เฟซบุ๊ก|facebook)$/i;

/** A value from the start of `rest`: Latin words, or Thai up to the next space, particle or clause word. */
function valueAt(rest: string): string {
  const trimmed = rest.replace(/^\s*(?:คือ|ว่า|:)?\s*/, "");
  const latin = /^[A-Za-z][\w'.-]*(?:\s+[A-Z][\w'.-]*)*/.exec(trimmed)?.[0];
  if (latin) return latin;
  return (UNTIL_CLAUSE.exec(trimmed)?.[1] ?? "").replace(PARTICLES, "");
}

// Patterns built once, at load (not per message).
const RELATION_NAMED: [RegExp, string][] = NAMED_ONES.map(([word, key]) => [new RegExp(`${word}(?:ของ)?${PRONOUN}?ชื่อ(?:ว่า)?`), key]);
const OWN_NAME = new RegExp(`(?:^|\\s|${PRONOUN})(?:${PRONOUN})?ชื่อ(?:ว่า|เล่น)?|ชื่อของ${PRONOUN}(?:คือ)?`);
const ANY_PRONOUN = new RegExp(PRONOUN);
const KIDS = new RegExp(`มีลูก\\s*(\\d|หนึ่ง|สอง|สาม|สี่|ห้า)\\s*คน`);
const JOB = new RegExp(`(?:ทำงาน|${PRONOUN})(?:เป็น|ทำงานเป็น|อาชีพ)`);
const SHOP = new RegExp(`(?:เปิด|มี|ทำ|ขาย(?:ของ)?ที่)(ร้าน[\\u0E00-\\u0E7F]*?)(?=ที่|อยู่|ใน|แถว|\\s|ครับ|ค่ะ|นะ|$)`);
const SELL = new RegExp(`${PRONOUN}(?:เปิดร้าน)?ขาย([\\u0E00-\\u0E7FA-Za-z]+)`);

function nameFacts(text: string): Found[] {
  const found: Found[] = [];
  for (const [pattern, key] of RELATION_NAMED) {
    const m = pattern.exec(text);
    if (m) {
      const value = valueAt(text.slice((m.index ?? 0) + m[0].length));
      if (value && !found.some((fact) => fact.key === key)) found.push({ key, value });
    }
  }
  const own = OWN_NAME.exec(text);
  const before = own ? text.slice(Math.max(0, own.index - 6), own.index + own[0].length) : "";
  if (own && !NAMED_ONES.some(([word]) => before.includes(word)) && (own.index === 0 || ANY_PRONOUN.test(before))) {
    const value = valueAt(text.slice(own.index + own[0].length));
    if (value) found.push({ key: "name", value });
  }
  const kids = KIDS.exec(text)?.[1];
  const count = kids ? countOf(kids) : undefined;
  if (count !== undefined) found.push({ key: "family.children", value: String(count) });
  return found;
}

// "ผมอายุ 34 ปี", "อายุ 34 ค่ะ" at the start of a clause: the author's age; "ลูกผมอายุ 5 ขวบ" (my child is
// five) and "แมวของผมอายุ 3 ปี" are not, so อายุ must open a clause or follow the pronoun that does.
const AGE = new RegExp(`(?:^|[\\s,])${PRONOUN}?อายุ\\s*(\\d{1,3})(?!\\d|\\s*(?:เดือน|วัน|สัปดาห์|นาที|ชั่วโมง))`);

function ageFacts(text: string): Found[] {
  const age = Number(AGE.exec(text)?.[1] ?? Number.NaN);
  return age >= 5 && age <= 120 ? [{ key: "age", value: String(age) }] : [];
}

function placeAfter(text: string, cue: RegExp, rank: number): Found[] {
  for (const m of text.matchAll(cue)) {
    const rest = text.slice((m.index ?? 0) + m[0].length).replace(/^(?:ประเทศ|จังหวัด|จ\.|เมือง)/, "");
    const place = placeAtStart(rest, true);
    if (place) return [{ key: place.kind === "city" ? "location.city" : "location.country", value: place.name, rank }];
    const known = THAI_PLACES.find((p) => rest.startsWith(p.name));
    if (known) return [{ key: known.kind === "city" ? "location.city" : "location.country", value: known.name, rank }];
  }
  return [];
}

function workFacts(text: string): Found[] {
  const found: Found[] = [];
  const job = JOB.exec(text);
  if (job) {
    const rest = text.slice(job.index + job[0].length).trim();
    const known = OCCUPATIONS.find((o) => rest.startsWith(o));
    if (known) found.push({ key: "occupation", value: known });
    else if (job[0].startsWith("ทำงาน")) {
      const value = valueAt(rest);
      if (value) found.push({ key: "occupation", value });
    }
  }
  const shop = SHOP.exec(text)?.[1];
  if (shop) found.push({ key: "business", value: shop });
  const sell = SELL.exec(text)?.[1];
  if (sell && !shop) found.push({ key: "business", value: sell.replace(PARTICLES, "") });
  return found;
}

function tasteFacts(text: string): Found[] {
  const found: Found[] = [];
  const add = (kind: "likes" | "dislikes", list: string): void => {
    for (const raw of list.split(/\s*(?:และ|กับ|แล้วก็|,|\s)\s*/)) {
      const item = raw.replace(/^(?:กิน|ดื่ม|ดู|ฟัง|เล่น|การ)/, "").replace(PARTICLES, "").replace(/(?:มาก|มากๆ|ที่สุด|เลย)+$/, "");
      if (!item || /คุณ|บริการ|ร้านนี้|อันนี้|นี้/.test(item)) continue;
      const fact = itemFact(kind, item);
      if (fact) found.push(fact);
    }
  };
  const dislike = /(?:ไม่ชอบ|เกลียด|แพ้|ไม่กิน|ไม่ถูกกับ)(.+?)(?=แต่|$)/g;
  for (const m of text.matchAll(dislike)) add("dislikes", m[1] ?? "");
  const like = /(?<!ไม่)(?:ชอบ|รัก)(?!คุณ)(.+?)(?=แต่|ไม่ชอบ|$)/g;
  for (const m of text.replace(/ไม่ชอบ.+?(?=แต่|$)/g, " ").matchAll(like)) add("likes", m[1] ?? "");
  return found;
}

function languageFacts(text: string): Found[] {
  const found: Found[] = [];
  const reply = /(?:ตอบ|คุย|พูด|เขียน|ส่ง)(?:กับ(?:ผม|ฉัน|หนู))?(?:เป็น)?ภาษา([\u0E00-\u0E7FA-Za-z]+?)(?=ได้|นะ|ครับ|ค่ะ|หน่อย|ด้วย|\s|$)/.exec(text);
  if (reply && /ตอบ|คุยกับ|พูดกับ|เขียน/.test(reply[0])) {
    const language = languageOf(reply[1] ?? "");
    if (language) found.push({ key: "preference.language", value: language });
    return found;
  }
  const spoken = /พูด((?:ภาษา)?[\u0E00-\u0E7FA-Za-z]+?)ได้/.exec(text)?.[1];
  if (spoken) {
    const names = spoken
      .split(/และ|กับ|,/)
      .map((part) => languageOf(part.replace(/^ภาษา/, "")))
      .filter((n): n is string => Boolean(n));
    if (names.length > 0) found.push({ key: "languages", value: [...new Set(names)].join(", ") });
  }
  return found;
}

/** Facts a Thai message states about its author (English words inside it are read too). */
export function thaiFacts(raw: string): Found[] {
  const text = raw.replace(/\u200b/g, "");
  if (/(?:อะไร|ไหม|มั้ย|เท่าไหร่|ที่ไหน|เมื่อไหร่|หรือเปล่า|\?)\s*(?:ครับ|ค่ะ|คะ)?\s*$/.test(text) && !/ตอบ|ภาษา/.test(text)) return [];
  const found: Found[] = [...nameFacts(text), ...workFacts(text), ...tasteFacts(text), ...languageFacts(text), ...ageFacts(text)];
  found.push(...placeAfter(text, /(?:อาศัย)?อยู่(?:ที่)?|ย้าย(?:มา|ไป)(?:อยู่)?(?:ที่)?/g, 3));
  found.push(...placeAfter(text, /มาจาก/g, 1));
  found.push(...placeAfter(text, /ที่/g, 2));
  return found.filter((fact) => !(fact.key === "business" && CHANNELS.test(fact.value)));
}
