/** A user attribute or fact stated in a message, e.g. `{ key: "phone", value: "+66 81 234 5678" }`. */
export interface AttributeUpdate {
  key: string;
  value: string;
}

const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
const PHONE = /\+?\d[\d\s\-().]{6,}\d/g;
const PHONE_CUE = /\b(phone|mobile|number|cell|whatsapp|call me|contact|no\.|nambar|namber)\b|เบอร์|โทร|มือถือ/i;
const THAI_PARTICLES = /(ครับ|ค่ะ|คะ|นะคะ|นะครับ|นะ|จ้ะ|จ้า|ค่า)+$/;
const LANGUAGES: Record<string, string> = {
  english: "English",
  thai: "Thai",
  hindi: "Hindi",
  ไทย: "Thai",
  ภาษาไทย: "Thai",
  อังกฤษ: "English",
  ภาษาอังกฤษ: "English",
};

function digitsIn(value: string): number {
  return (value.match(/\d/g) ?? []).length;
}

/** Phone numbers (9–15 digits, written with a cue word or a leading "+"). */
export function findPhones(text: string): string[] {
  const withoutEmails = text.replace(EMAIL, " ");
  const cue = PHONE_CUE.test(withoutEmails);
  return [...withoutEmails.matchAll(PHONE)]
    .map((m) => m[0].trim())
    .filter((value) => digitsIn(value) >= 9 && digitsIn(value) <= 15 && (cue || value.startsWith("+")));
}

/** E-mail addresses in the text. */
export function findEmails(text: string): string[] {
  return [...text.matchAll(EMAIL)].map((m) => m[0]);
}

function findName(text: string): string | undefined {
  const english = /\bmy name is\s+([A-Za-z][\w'-]*)(?:\s+([A-Za-z][\w'-]*))?/i.exec(text);
  if (english?.[1]) {
    // A capitalised second word is a surname; "my name is Ann and ..." stops at "Ann".
    const surname = english[2] && /^[A-Z]/.test(english[2]) && /^[A-Z]/.test(english[1]) ? ` ${english[2]}` : "";
    return `${english[1]}${surname}`;
  }
  const hindi = /\bmera naam\s+(?:hai\s+)?([A-Za-z][\w'-]*)/i.exec(text)?.[1];
  if (hindi && !/^hai$/i.test(hindi)) return hindi;
  const thai = /(?:ผม|ฉัน|ดิฉัน|หนู|เรา)ชื่อ(?:ว่า)?\s*([^\s,.!?]+)|ชื่อของ(?:ผม|ฉัน|ดิฉัน)คือ\s*([^\s,.!?]+)/.exec(text);
  const raw = thai?.[1] ?? thai?.[2];
  const name = raw?.replace(THAI_PARTICLES, "");
  return name ? name : undefined;
}

function languageIn(value: string): string | undefined {
  const lower = value.toLowerCase();
  const hit = Object.keys(LANGUAGES).find((word) => lower.includes(word));
  return hit ? LANGUAGES[hit] : undefined;
}

function findPreferences(text: string): AttributeUpdate[] {
  const found: AttributeUpdate[] = [];
  const replyIn = /\b(?:reply|respond|answer|talk|speak|write)\s+(?:to me\s+)?in\s+([A-Za-z]+)/i.exec(text)?.[1];
  const replyLanguage = replyIn ? languageIn(replyIn) : undefined;
  if (replyLanguage) found.push({ key: "preference.language", value: replyLanguage });
  const english = /\bI\s*(?:'d|would)?\s*(prefer|like|love|enjoy)\s+([^.!?,;]+)/i.exec(text);
  const hindi = /\bmujhe\s+([^.!?,;]+?)\s+pasand\s+hai/i.exec(text);
  const thai = /(?:ผม|ฉัน|ดิฉัน)(?:ชอบ|อยากได้)\s*([^\s,.!?]+)/.exec(text);
  const value = (english?.[2] ?? hindi?.[1] ?? thai?.[1])?.replace(THAI_PARTICLES, "").trim();
  // "I like your service" is feedback, not a preference.
  if (!value || /^(your|this|that|it|to\b)/i.test(value)) return found;
  const language = languageIn(value);
  if (language) {
    if (!replyLanguage) found.push({ key: "preference.language", value: language });
  } else {
    found.push({ key: "preference", value });
  }
  return found;
}

/**
 * The attributes a message states about its author: phone, email, name and preferences
 * (a language preference becomes `preference.language`). Deterministic; returns [] when none.
 */
export function detectAttributeUpdates(text: string): AttributeUpdate[] {
  const updates: AttributeUpdate[] = [];
  const phone = findPhones(text)[0];
  if (phone) updates.push({ key: "phone", value: phone });
  const email = findEmails(text)[0];
  if (email) updates.push({ key: "email", value: email });
  const name = findName(text);
  if (name) updates.push({ key: "name", value: name });
  updates.push(...findPreferences(text));
  return updates;
}
