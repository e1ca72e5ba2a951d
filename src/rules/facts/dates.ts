import { dates } from "../../memory/language-tools.js";
import type { Found } from "./found.js";

const THAI_MONTHS: [RegExp, number][] = [
  [/^(มกราคม|ม\.ค\.?)/, 1], [/^(กุมภาพันธ์|ก\.พ\.?)/, 2], [/^(มีนาคม|มี\.ค\.?)/, 3], [/^(เมษายน|เมษา|เม\.ย\.?)/, 4],
  [/^(พฤษภาคม|พฤษภา|พ\.ค\.?)/, 5], [/^(มิถุนายน|มิถุนา|มิ\.ย\.?)/, 6], [/^(กรกฎาคม|กรกฎา|ก\.ค\.?)/, 7],
  [/^(สิงหาคม|สิงหา|ส\.ค\.?)/, 8], [/^(กันยายน|กันยา|ก\.ย\.?)/, 9], [/^(ตุลาคม|ตุลา|ต\.ค\.?)/, 10],
  [/^(พฤศจิกายน|พฤศจิกา|พ\.ย\.?)/, 11], [/^(ธันวาคม|ธันวา|ธ\.ค\.?)/, 12],
];

const BIRTHDAY_CUE = /\b(birthday|b-?day|born|date of birth|dob|janamdin|janmdin|janm ?din|janam ?din)\b|วันเกิด|เกิดวันที่|เกิดเมื่อ|ผมเกิด|ฉันเกิด|หนูเกิด/i;
const ANNIVERSARY_CUE = /\b(anniversary|anniv|saalgirah|salgirah)\b|ครบรอบ/i;
// Someone else's birthday ("my wife's birthday", "my son was born on", "mere bete ka birthday",
// "วันเกิดแม่ผม") is not the author's: no `birthday` fact is made from it.
const THAI_OTHERS = "ภรรยา|เมีย|สามี|แฟน|ลูก|แม่|พ่อ|พี่|น้อง|ปู่|ย่า|ยาย|เพื่อน|แมว|หมา|เขา|เธอ";
const OTHERS_BIRTHDAY = new RegExp(
  [
    "\\b(?:his|her|their|your|our|its)\\s+(?:birthday|b-?day|date of birth|dob)\\b",
    "\\b[a-z]+['\u2019]s\\s+(?:birthday|b-?day|date of birth|dob)\\b",
    "\\b(?:he|she|they|you|it|we)\\s+(?:was|were|is|are|got)\\s+born\\b",
    "\\bmy\\s+(?!birthday|b-?day|date of birth|dob\\b)[a-z]+(?:\\s+[a-z]+)?\\s+(?:was|is|were|got)\\s+born\\b",
    "\\b(?!mera|meri|mere|apna|apni)[a-z]+\\s+(?:ka|ki|ke)\\s+(?:birthday|b-?day|janamdin|janmdin|janm ?din|janam ?din)\\b",
    `วันเกิด(?:ของ)?(?:${THAI_OTHERS})`,
    `(?:${THAI_OTHERS})(?:ของ)?(?:ผม|ฉัน|ดิฉัน|หนู|เรา)?เกิด`,
  ].join("|"),
  "i",
);

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

/** "MM-DD", or "YYYY-MM-DD" when the year is known; Buddhist-era years (2400+) become CE. */
export function formatDay(day: { year?: number; month: number; day: number }): string {
  const monthDay = `${pad(day.month)}-${pad(day.day)}`;
  if (day.year === undefined) return monthDay;
  const year = day.year > 2400 ? day.year - 543 : day.year;
  return `${year}-${monthDay}`;
}

/** A Thai date such as "5 พฤษภาคม" or "10 ตุลาคม 2535". */
function thaiDate(text: string): { year?: number; month: number; day: number } | undefined {
  for (const m of text.matchAll(/(\d{1,2})\s*([ก-๛.]+)\s*(\d{4})?/g)) {
    const day = Number(m[1]);
    const month = THAI_MONTHS.find(([re]) => re.test(m[2] ?? ""))?.[1];
    if (month && day >= 1 && day <= 31) return m[3] ? { day, month, year: Number(m[3]) } : { day, month };
  }
  return undefined;
}

/** A calendar date written in the text (chrono-node for English month names and numbers, rules for Thai). */
function dateIn(text: string): { year?: number; month: number; day: number } | undefined {
  const thai = thaiDate(text);
  if (thai) return thai;
  // chrono reads "12 August", "March 14", "2 July 1990" in English and in romanised-Hindi sentences.
  for (const result of dates().parse(text)) {
    const known = result.start;
    if (!known.isCertain("day") || !known.isCertain("month")) continue;
    const month = known.get("month");
    const day = known.get("day");
    if (month === null || day === null) continue;
    const year = known.isCertain("year") ? known.get("year") : null;
    return year === null ? { month, day } : { year, month, day };
  }
  return undefined;
}

/** Birthday and anniversary facts: a date in a message that says which day it is. */
export function dateFacts(text: string): Found[] {
  const found: Found[] = [];
  const anniversary = ANNIVERSARY_CUE.test(text);
  const birthday = !anniversary && BIRTHDAY_CUE.test(text) && !OTHERS_BIRTHDAY.test(text);
  if (!anniversary && !birthday) return found;
  const day = dateIn(text);
  if (day) found.push({ key: anniversary ? "anniversary" : "birthday", value: formatDay(day) });
  return found;
}
