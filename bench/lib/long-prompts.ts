/** Long, realistic prompts for cost benchmarks: mixed English sentences with some Thai. */
import { seededRandom } from "./synthetic.js";

const ENGLISH = [
  "I ordered the blue running shoes last Tuesday and the parcel still has not arrived.",
  "Could you check whether my refund for order 4,512 was processed by the billing team?",
  "The mobile app crashes every time I open the settings page on my Android phone.",
  "My daughter is allergic to peanuts, so please remember that when suggesting recipes.",
  "We are planning a trip to Chiang Mai in December and need a hotel near the old city.",
  "The invoice shows a charge of 129.99 dollars that I do not recognise at all.",
  "Please cancel my premium subscription at the end of the current billing period.",
  "Yesterday the delivery driver left the package at the wrong address again.",
  "I prefer vegetarian meals and I usually cook dinner for four people on weekends.",
  "How do I reset my password if I no longer have access to the old email account?",
  "The quarterly report needs updated figures for revenue, churn and customer growth.",
  "Our team moved the weekly meeting from Monday morning to Thursday afternoon.",
];
const THAI = [
  "ฉันสั่งรองเท้าวิ่งสีฟ้าเมื่อวันอังคารที่แล้วแต่ยังไม่ได้รับพัสดุเลยครับ",
  "ช่วยตรวจสอบการคืนเงินคำสั่งซื้อของฉันหน่อยได้ไหมคะ",
  "แอปพลิเคชันปิดตัวเองทุกครั้งที่เปิดหน้าการตั้งค่า",
  "เราวางแผนจะไปเที่ยวเชียงใหม่ในเดือนธันวาคมและต้องการโรงแรมใกล้เมืองเก่า",
];

/**
 * A prompt of about `chars` characters (never more): English sentences, about one in six Thai,
 * in a seeded order so every run sends the same text for the same `seed`.
 */
export function longPrompt(chars: number, seed = 1): string {
  const random = seededRandom(seed);
  const parts: string[] = [];
  let length = 0;
  for (;;) {
    const pool = random() < 1 / 6 ? THAI : ENGLISH;
    const sentence = pool[Math.floor(random() * pool.length)] ?? "";
    if (length + sentence.length + 1 > chars) break;
    parts.push(sentence);
    length += sentence.length + 1;
  }
  return parts.join(" ");
}
