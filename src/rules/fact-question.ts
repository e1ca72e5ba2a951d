/**
 * Which stored fact a question asks about ("What is my phone number?", "เบอร์โทรของฉันคืออะไร",
 * "mera number kya hai?"), without a model. Returns a fact key or key family (`likes`,
 * `dislikes`), or undefined when the message is not such a question.
 */

const QUESTION =
  /\?|^(what|what's|whats|who|where|when|which|how|do you|tell me|remind me)\b|อะไร|ที่ไหน|เท่าไหร่|เท่าไร|เมื่อไหร่|ไหน|ใคร|กี่|\b(kya|kahan|kab|kaun|kitne|kitna|batao|bataiye)\b/i;
const SELF = /\b(my|i|me|am i|do i|mera|meri|mere|main|mai|mujhe|mujhko)\b|ฉัน|ผม|ดิฉัน|หนู|เรา/i;

// Specific topics before general ones: "my WhatsApp number" is not the phone, "my wife's name" not my name.
const TOPICS: [string, RegExp][] = [
  ["whatsapp", /whats\s?app/i],
  ["line_id", /\bline\b|ไลน์/i],
  ["email", /\be-?mail\b|อีเมล/i],
  ["family.wife", /\b(wife|patni|biwi)\b|ภรรยา|เมีย/i],
  ["family.husband", /\b(husband|pati)\b|สามี/i],
  ["family.daughter", /\b(daughter|beti)\b|ลูกสาว/i],
  ["family.son", /\b(son|beta|bete)\b|ลูกชาย/i],
  ["family.mother", /\b(mother|mom|mum|maa|mummy)\b|แม่/i],
  ["family.father", /\b(father|dad|papa|pitaji)\b|พ่อ/i],
  ["family.children", /\b(kids|children|bachche|bacche)\b|ลูก(?:กี่|\s*กี่)/i],
  ["preference.language", /\b(language|bhasha)\b.*\b(reply|answer|respond|talk|jawab)\b|\b(reply|answer|respond|jawab)\b.*\b(language|bhasha)\b|ตอบ.*ภาษา/i],
  ["preference.contact", /\b(contact|reach)\b|ติดต่อ/i],
  ["languages", /\blanguages?\b.*\bspeak\b|\bspeak\b.*\blanguages?\b|\bbolta|bolti\b|พูดภาษา/i],
  ["timezone", /\btime\s?zone\b|เขตเวลา/i],
  ["anniversary", /\banniversary\b|ครบรอบ/i],
  ["birthday", /\b(birthday|born|bday|janamdin)\b|วันเกิด|เกิด/i],
  ["phone", /\b(phone|number|mobile|cell|nambar)\b|เบอร์|โทร/i],
  ["occupation", /\b(job|occupation|profession|work as|what do i do|kaam)\b|อาชีพ|ทำงานอะไร/i],
  ["business", /\b(business|shop|company|dukaan|bakery|store)\b|ร้าน|ธุรกิจ/i],
  ["location.country", /\b(country|where am i from|where i'?m from|kahan se)\b|ประเทศ|มาจากไหน/i],
  ["location.city", /\b(city|where do i live|where i live|where am i based|kahan rehta|kahan rehti|kahan rahta|kahan rahti)\b|อยู่ที่ไหน|อยู่ไหน|จังหวัด/i],
  ["dislikes", /\b(dislike|hate|don'?t like|do not like|pasand nahi|pasand nahin)\b|ไม่ชอบ|เกลียด/i],
  ["likes", /\b(like|love|enjoy|favou?rite|pasand)\b|ชอบ/i],
  ["name", /\b(name|naam|who am i)\b|ชื่อ/i],
];

/** The fact key (or `likes` / `dislikes`) a question about the user asks for, if any. */
export function askedFactKey(text: string): string | undefined {
  const message = text.trim();
  if (!QUESTION.test(message) || !SELF.test(message)) return undefined;
  return TOPICS.find(([, pattern]) => pattern.test(message))?.[0];
}
