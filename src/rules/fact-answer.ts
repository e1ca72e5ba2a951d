/**
 * One-sentence answers to a question about a stored fact, in the language of the question
 * (English, Thai or romanised Hindi), with when the user said it.
 */

/** A current fact as the offline responder sees it: key, value and since when it is known. */
export interface KnownFact {
  key: string;
  value: string;
  validFrom: string;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const THAI_MONTHS = ["ม.ค.", "ก.พ.", "มี.ค.", "เม.ย.", "พ.ค.", "มิ.ย.", "ก.ค.", "ส.ค.", "ก.ย.", "ต.ค.", "พ.ย.", "ธ.ค."];
const MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** How each key is named in an answer. */
export const LABELS: Record<string, string> = {
  name: "name", phone: "phone number", email: "email", line_id: "LINE ID", whatsapp: "WhatsApp", "location.city": "city",
  "location.country": "country", occupation: "occupation", business: "business", timezone: "time zone",
  birthday: "birthday", anniversary: "anniversary", languages: "languages", "preference.language": "preferred language",
  "preference.contact": "preferred way to be contacted", order_number: "order number", age: "age",
};
const THAI_LABELS: Record<string, string> = {
  name: "ชื่อ", phone: "เบอร์โทร", email: "อีเมล", line_id: "ไลน์ไอดี", whatsapp: "WhatsApp", "location.city": "เมืองที่อยู่",
  "location.country": "ประเทศ", occupation: "อาชีพ", business: "ธุรกิจ", timezone: "เขตเวลา", birthday: "วันเกิด",
  anniversary: "วันครบรอบ", languages: "ภาษาที่พูด", "preference.language": "ภาษาที่ต้องการ", "preference.contact": "ช่องทางติดต่อ",
  likes: "สิ่งที่ชอบ", dislikes: "สิ่งที่ไม่ชอบ", "family.wife": "ภรรยา", "family.husband": "สามี", "family.son": "ลูกชาย",
  "family.daughter": "ลูกสาว", "family.mother": "แม่", "family.father": "พ่อ", "family.children": "จำนวนลูก",
  order_number: "เลขคำสั่งซื้อ", age: "อายุ", pet: "ชื่อสัตว์เลี้ยง", "pet.cat": "ชื่อแมว", "pet.dog": "ชื่อหมา",
};

/** What the user named this key as, in English ("phone number", "wife", "cat's name" for `pet.cat`). */
export function labelOf(key: string): string {
  if (key === "pet" || key.startsWith("pet.")) return `${animalOf(key)}'s name`;
  return LABELS[key] ?? key.replace(/^family\./, "").replace(/[._]/g, " ");
}

/** The animal of a `pet.<animal>` key ("cat"), or "pet" for the key family. */
function animalOf(key: string): string {
  return key.startsWith("pet.") ? key.slice(4).replace(/_/g, " ") : "pet";
}

/** `asked` is a key family (several facts answer it): likes, dislikes, every pet. */
function isFamily(asked: string): boolean {
  return asked === "likes" || asked === "dislikes" || asked === "pet";
}

function toldOn(iso: string, now: Date, language: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const months = language === "th" ? THAI_MONTHS : MONTHS;
  const day = `${date.getUTCDate()} ${months[date.getUTCMonth()]}`;
  return date.getUTCFullYear() === now.getUTCFullYear() ? day : `${day} ${date.getUTCFullYear()}`;
}

/** "03-14" → "14 March", "1990-07-02" → "2 July 1990"; anything else as it is. */
function readableDay(value: string): string {
  const m = /^(?:(\d{4})-)?(\d{2})-(\d{2})$/.exec(value);
  const month = m ? MONTH_NAMES[Number(m[2]) - 1] : undefined;
  if (!m || !month) return value;
  return `${Number(m[3])} ${month}${m[1] ? ` ${m[1]}` : ""}`;
}

function listed(values: readonly string[], and: string): string {
  return values.length <= 1 ? (values[0] ?? "") : `${values.slice(0, -1).join(", ")} ${and} ${values[values.length - 1]}`;
}

function english(asked: string, value: string, facts: readonly KnownFact[], source: string, thisYear: boolean): string {
  const told = `you told me on ${source}`;
  const values = facts.map((fact) => fact.value);
  if (asked === "pet") return `${listed(facts.map((fact) => `your ${animalOf(fact.key)} is called ${fact.value}`), "and").replace(/^y/, "Y")} — ${told}.`;
  if (asked.startsWith("pet.")) return `Your ${animalOf(asked)} is called ${value} — ${told}.`;
  if (asked === "age") return thisYear ? `You are ${value} — ${told}.` : `You were ${value} when you told me, on ${source}.`;
  if (asked === "likes" || asked === "dislikes") return `You ${asked === "likes" ? "like" : "dislike"} ${listed(values, "and")} — ${told}.`;
  if (asked === "family.children") return `You have ${value} children — ${told}.`;
  if (asked.startsWith("family.")) return `Your ${labelOf(asked)} is ${value} — ${told}.`;
  if (asked === "languages") return `You speak ${value} — ${told}.`;
  return `Your ${labelOf(asked)} is ${value} — ${told}.`;
}

function hindi(asked: string, value: string, facts: readonly KnownFact[], source: string): string {
  const told = `aapne ${source} ko bataya tha`;
  const values = facts.map((fact) => fact.value);
  if (asked === "pet" || asked.startsWith("pet.")) {
    return `${listed(facts.map((fact) => `aapke ${animalOf(fact.key)} ka naam ${fact.value}`), "aur").replace(/^a/, "A")} hai — ${told}.`;
  }
  if (asked === "age") return `Aapki umar ${value} saal hai — ${told}.`;
  if (asked === "likes" || asked === "dislikes") return `Aapko ${listed(values, "aur")} ${asked === "likes" ? "pasand hai" : "pasand nahi hai"} — ${told}.`;
  if (asked === "family.children") return `Aapke ${value} bachche hain — ${told}.`;
  return `Aapka ${labelOf(asked)} ${value} hai — ${told}.`;
}

/** The answer to a question about `asked` from the current facts, or undefined when none is stored. */
export function answerFromFacts(asked: string, known: readonly KnownFact[], now: Date, language: string): string | undefined {
  const list = isFamily(asked);
  // Only a fact stored under the asked key answers: never another key's value.
  const matches = known.filter((fact) => (list ? fact.key.startsWith(`${asked}.`) : fact.key === asked));
  const newest = [...matches].sort((a, b) => b.validFrom.localeCompare(a.validFrom))[0];
  if (!newest) return undefined;
  const source = toldOn(newest.validFrom, now, language);
  const value = asked === "birthday" || asked === "anniversary" ? readableDay(newest.value) : newest.value;
  if (language === "th") {
    const shown = list ? matches.map((fact) => fact.value).join(", ") : value;
    return `${THAI_LABELS[asked] ?? labelOf(asked)}ของคุณคือ ${shown} — คุณบอกไว้เมื่อ ${source}`;
  }
  if (language === "hi") return hindi(asked, value, list ? matches : [newest], source);
  return english(asked, value, list ? matches : [newest], source, new Date(newest.validFrom).getUTCFullYear() === now.getUTCFullYear());
}
