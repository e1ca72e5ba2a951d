/**
 * English words too common to rank by, in the lower-case, apostrophe-free form `tokenize`
 * produces before stemming ("don't" → "dont").
 */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an the and or but if then else of to in on at by for with from as into onto about over under " +
    "is are was were be been being am do does did doing have has had having will would shall should can could may might must " +
    "i me my mine we us our ours you your yours he him his she her hers it its they them their theirs " +
    "this that these those what which who whom whose when where why how there here " +
    "not no nor so too very just than also only own same such both each few more most other some any all " +
    "again further once up down out off s t dont doesnt didnt isnt arent wasnt im ive id youre its lets ok okay please"
  ).split(" "),
);

/** Thai particles (ครับ, ค่ะ, นะ …), pronouns and function words that segment as words of their own. */
export const THAI_STOP_WORDS: ReadonlySet<string> = new Set([
  "ครับ", "ค่ะ", "คะ", "ค่า", "นะ", "จ้ะ", "จ้า", "ฮะ", "จ๊ะ", "น่ะ", "เนอะ", "สิ", "ล่ะ",
  "ที่", "และ", "ของ", "ใน", "นี้", "นั้น", "โน้น", "ก็", "ได้", "จะ", "ให้", "กับ", "แล้ว", "คือ", "ว่า",
  "เป็น", "มี", "ไป", "มา", "อยู่", "หรือ", "ด้วย", "แต่", "จาก", "ซึ่ง", "อัน", "การ", "ความ", "โดย",
  "ถึง", "เพื่อ", "ไหม", "มั้ย", "หน่อย", "บ้าง", "เลย", "ผม", "ฉัน", "ดิฉัน", "เรา", "คุณ", "เขา", "มัน",
]);
