import type { CountryCode } from "libphonenumber-js";
import { phones } from "../../memory/language-tools.js";
import type { Found } from "./found.js";
import { ORDER_CUE_BEFORE } from "./orders.js";

const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
const PHONE = /\+?\d[\d\s\-().]{5,}\d/g;
const PHONE_CUE =
  /\b(phone|mobile|number|cell|tel|whatsapp|call me|text me|contact|reach me|no\.|nambar|namber|numbr|ph)\b|เบอร์|โทร|มือถือ/i;
const WHATSAPP_BEFORE = /\b(?:whatsapp|whats app|wa)\b(?:\s+(?:number|no\.?|num))?\s*(?:is|:|=|hai|-)?\s*$/i;
const LINE_ID =
  /(?:\bline\b|ไลน์)(?:\s*(?:id|ไอดี))?(?:\s*(?:ของ)?\s*(?:ผม|ฉัน|ดิฉัน|หนู|เรา))?\s*(is|คือ|:|=|hai|-)?\s*@?([A-Za-z0-9][\w.-]{2,30})/gi;
const ID_LINE = /ไอดีไลน์(?:\s*(?:ของ)?\s*(?:ผม|ฉัน|ดิฉัน|หนู|เรา))?\s*(?:คือ|:)?\s*@?([A-Za-z0-9][\w.-]{2,30})/g;
const NOT_HANDLES = /^(not|no|or|and|is|me|please|better|instead|id|pe|par|se|karo|account|app|chat|group)$/i;

function digitsIn(value: string): number {
  return (value.match(/\d/g) ?? []).length;
}

/** E-mail addresses in the text, as written. */
export function findEmails(text: string): string[] {
  return [...text.matchAll(EMAIL)].map((m) => m[0].replace(/\.$/, ""));
}

/**
 * Phone numbers: a run of 7–15 digits where the message says it is a number ("phone", "เบอร์",
 * "number"), or any run that libphonenumber-js accepts as a valid number for the language's
 * usual country (TH for Thai, IN for Hindi) or written with a "+" country code.
 */
export function findPhones(text: string, country?: CountryCode): { value: string; index: number }[] {
  const withoutEmails = text.replace(EMAIL, (m) => " ".repeat(m.length));
  const cue = PHONE_CUE.test(withoutEmails);
  const found: { value: string; index: number }[] = [];
  for (const m of withoutEmails.matchAll(PHONE)) {
    const value = m[0].trim().replace(/[\s(-]+$/, "");
    const digits = digitsIn(value);
    if (digits < 7 || digits > 15) continue;
    // Dates and amounts are not numbers to call.
    if (/^\d{1,4}[./-]\d{1,2}[./-]\d{1,4}$/.test(value) || /^\d{1,3}(,\d{3})+$/.test(value)) continue;
    // "my order number is 4821399123": the cue "number" belongs to the order.
    if (ORDER_CUE_BEFORE.test(withoutEmails.slice(Math.max(0, (m.index ?? 0) - 40), m.index))) continue;
    const parsed = phones().parsePhoneNumberFromString(value, country);
    if (cue ? digits >= 7 : parsed?.isValid() === true || (value.startsWith("+") && digits >= 9)) {
      found.push({ value, index: m.index ?? 0 });
    }
  }
  return found;
}

/** Phone, WhatsApp, e-mail and LINE facts; a number written after "WhatsApp" is that, not the phone. */
export function contactFacts(text: string, country?: CountryCode): Found[] {
  const found: Found[] = [];
  for (const phone of findPhones(text, country)) {
    const before = text.slice(Math.max(0, phone.index - 30), phone.index);
    found.push({ key: WHATSAPP_BEFORE.test(before) ? "whatsapp" : "phone", value: phone.value });
  }
  const email = findEmails(text)[0];
  if (email) found.push({ key: "email", value: email.toLowerCase() });
  for (const m of text.matchAll(LINE_ID)) {
    const handle = m[2] ?? "";
    // "contact me by LINE, not email": a bare word after LINE is a handle only when it looks like one.
    const looksLikeHandle = Boolean(m[1]) || /[\d_.]/.test(handle);
    if (looksLikeHandle && !NOT_HANDLES.test(handle) && !/^\d+$/.test(handle)) found.push({ key: "line_id", value: handle });
  }
  for (const m of text.matchAll(ID_LINE)) found.push({ key: "line_id", value: m[1] ?? "", rank: 1 });
  return found;
}

const CHANNELS: [RegExp, string][] = [
  [/^(line|ไลน์)$/i, "LINE"],
  [/^(whatsapp|whats app|wa|วอทส์แอป)$/i, "WhatsApp"],
  [/^(e-?mail|mail|อีเมล|อีเมล์)$/i, "email"],
  [/^(sms|text|message|msg)$/i, "text"],
  [/^(phone|call|โทร|โทรศัพท์)$/i, "phone"],
  [/^(telegram)$/i, "Telegram"],
];
const CHANNEL_WORD = "line|ไลน์|whatsapp|whats app|e-?mail|mail|อีเมล์?|sms|text|phone|call|โทรศัพท์|โทร|telegram";
const CONTACT_PREFERENCES = [
  new RegExp(`\\b(?:contact|reach|message|ping|msg)\\s+(?:me|us)\\s+(?:by|on|via|through|over|using)\\s+(${CHANNEL_WORD})`, "i"),
  new RegExp(`\\b(${CHANNEL_WORD})\\s+(?:is|would be)\\s+(?:better|best|easier|preferred)`, "i"),
  new RegExp(`\\b(?:prefer|rather)\\s+(${CHANNEL_WORD})\\b`, "i"),
  new RegExp(`\\b(text|whatsapp|e-?mail|sms)\\s+me\\b(?!\\s+(?:on|at)\\s+\\+?\\d)`, "i"),
  new RegExp(`\\b(${CHANNEL_WORD})\\s+(?:pe|par|se|mein)\\s+(?:hi\\s+)?(?:contact|message|msg|baat)\\s*(?:karo|karna|karein|kijiye|kare|kar)`, "i"),
  new RegExp(`ติดต่อ(?:ผม|ฉัน|ดิฉัน|หนู|เรา)?\\s*(?:ทาง|ผ่าน|ที่)\\s*(${CHANNEL_WORD})`, "i"),
  new RegExp(`(?:ส่ง|ทัก)(?:มา)?(?:ทาง|ผ่าน)\\s*(${CHANNEL_WORD})`, "i"),
];

/** The channel the user asks to be reached on ("contact me by LINE, not email"), if stated. */
export function contactPreference(text: string): Found | undefined {
  for (const pattern of CONTACT_PREFERENCES) {
    const word = pattern.exec(text)?.[1];
    const channel = word ? CHANNELS.find(([re]) => re.test(word.trim()))?.[1] : undefined;
    if (channel) return { key: "preference.contact", value: channel };
  }
  return undefined;
}

const TZ_WORD = /\b(?:time\s?zone|timezone|tz)\b|เขตเวลา|โซนเวลา|ไทม์โซน/i;
const TZ_OFFSET = /\b(GMT|UTC)\s?([+-−]\s?\d{1,2}(?::?\d{2})?)/i;
const TZ_IANA = /\b((?:Asia|Europe|America|Africa|Australia|Pacific)\/[A-Z][A-Za-z_]+)\b/;
const TZ_ABBR = /\b(IST|ICT|PST|PDT|EST|EDT|CST|CET|CEST|BST|JST|KST|SGT|AEST|AEDT|HKT|WIB|GMT|UTC)\b/;

/** A stated time zone: an offset ("GMT+7"), an IANA name, or an abbreviation next to "time zone". */
export function timezoneFact(text: string): Found | undefined {
  const offset = TZ_OFFSET.exec(text);
  if (offset) return { key: "timezone", value: `${offset[1]?.toUpperCase()}${(offset[2] ?? "").replace(/\s/g, "").replace("−", "-")}` };
  const iana = TZ_IANA.exec(text)?.[1];
  if (iana) return { key: "timezone", value: iana };
  const abbr = TZ_WORD.test(text) ? TZ_ABBR.exec(text)?.[1] : undefined;
  return abbr ? { key: "timezone", value: abbr } : undefined;
}
