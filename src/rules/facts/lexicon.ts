/**
 * Small word lists the rule-based fact extractor leans on where no package serves: places of the
 * regions the service is used in (English, Thai and romanised-Hindi spellings), languages,
 * occupations and family words. Lower-case keys; values are how a fact is written.
 */

const CITY_NAMES = [
  "Bangkok", "Chiang Mai", "Chiang Rai", "Phuket", "Pattaya", "Khon Kaen", "Nakhon Ratchasima", "Korat", "Udon Thani",
  "Hat Yai", "Songkhla", "Krabi", "Surat Thani", "Koh Samui", "Hua Hin", "Ayutthaya", "Nonthaburi", "Pai", "Chonburi",
  "Rayong", "Ubon Ratchathani", "Lampang", "Nan", "Sukhothai", "Phitsanulok", "Mumbai", "Delhi", "New Delhi", "Bangalore",
  "Bengaluru", "Pune", "Chennai", "Kolkata", "Hyderabad", "Ahmedabad", "Jaipur", "Lucknow", "Kanpur", "Nagpur", "Indore",
  "Bhopal", "Patna", "Surat", "Goa", "Noida", "Gurgaon", "Gurugram", "Chandigarh", "Kochi", "Varanasi", "Agra", "Amritsar",
  "London", "Manchester", "Birmingham", "Liverpool", "Edinburgh", "Glasgow", "Paris", "Berlin", "Munich", "Hamburg",
  "Amsterdam", "Madrid", "Barcelona", "Rome", "Milan", "Vienna", "Zurich", "Dublin", "Lisbon", "Prague", "Stockholm",
  "New York", "Los Angeles", "San Francisco", "Chicago", "Seattle", "Boston", "Toronto", "Vancouver", "Sydney",
  "Melbourne", "Auckland", "Tokyo", "Osaka", "Kyoto", "Seoul", "Beijing", "Shanghai", "Hong Kong", "Taipei", "Singapore",
  "Kuala Lumpur", "Jakarta", "Bali", "Manila", "Hanoi", "Ho Chi Minh City", "Saigon", "Phnom Penh", "Vientiane", "Yangon",
  "Dubai", "Doha", "Karachi", "Lahore", "Dhaka", "Kathmandu", "Colombo",
];

const COUNTRY_NAMES = [
  "Thailand", "India", "Laos", "Cambodia", "Vietnam", "Myanmar", "Burma", "Malaysia", "Indonesia", "Philippines", "China",
  "Japan", "Korea", "South Korea", "Taiwan", "Nepal", "Bangladesh", "Pakistan", "Sri Lanka", "UK", "United Kingdom",
  "England", "Scotland", "Wales", "Ireland", "Germany", "France", "Spain", "Italy", "Portugal", "Netherlands", "Belgium",
  "Switzerland", "Austria", "Sweden", "Norway", "Denmark", "Finland", "Poland", "Russia", "USA", "US", "United States",
  "America", "Canada", "Mexico", "Brazil", "Argentina", "Australia", "New Zealand", "South Africa", "Egypt", "UAE",
  "Saudi Arabia", "Qatar", "Israel", "Turkey",
];

const THAI_CITIES = [
  "กรุงเทพมหานคร", "กรุงเทพฯ", "กรุงเทพ", "กทม", "เชียงใหม่", "เชียงราย", "ภูเก็ต", "พัทยา", "ขอนแก่น", "นครราชสีมา", "โคราช",
  "อุดรธานี", "หาดใหญ่", "สงขลา", "กระบี่", "สุราษฎร์ธานี", "เกาะสมุย", "หัวหิน", "อยุธยา", "นนทบุรี", "ปทุมธานี", "ชลบุรี",
  "ระยอง", "พิษณุโลก", "อุบลราชธานี", "ลำปาง", "ปาย", "น่าน", "สุโขทัย", "ตราด", "แม่ฮ่องสอน", "นครปฐม", "สมุทรปราการ",
  "ลำพูน", "พะเยา", "แพร่", "ตรัง", "ชุมพร", "ระนอง", "เพชรบุรี", "ประจวบคีรีขันธ์", "กาญจนบุรี", "สระบุรี", "ลพบุรี",
];

const THAI_COUNTRIES = [
  "ประเทศไทย", "ไทย", "ลาว", "พม่า", "เมียนมา", "กัมพูชา", "เขมร", "เวียดนาม", "มาเลเซีย", "สิงคโปร์", "จีน", "ญี่ปุ่น", "เกาหลี",
  "อินเดีย", "อังกฤษ", "อเมริกา", "สหรัฐ", "ฝรั่งเศส", "เยอรมนี", "เยอรมัน", "ออสเตรเลีย", "แคนาดา", "รัสเซีย", "อินโดนีเซีย",
];

function lowerMap(names: readonly string[]): Map<string, string> {
  return new Map(names.map((name) => [name.toLowerCase(), name]));
}

export const CITIES = lowerMap(CITY_NAMES);
export const COUNTRIES = lowerMap(COUNTRY_NAMES);
/** Thai place names, longest first so that a prefix scan takes "กรุงเทพมหานคร" before "กรุงเทพ". */
export const THAI_PLACES: readonly { name: string; kind: "city" | "country" }[] = [
  ...THAI_CITIES.map((name) => ({ name, kind: "city" as const })),
  ...THAI_COUNTRIES.map((name) => ({ name, kind: "country" as const })),
].sort((a, b) => b.name.length - a.name.length);

/** Language names in English, Thai and romanised Hindi, to the English name. */
export const LANGUAGES = new Map<string, string>([
  ...[
    "English", "Thai", "Hindi", "Tamil", "Telugu", "Bengali", "Marathi", "Gujarati", "Punjabi", "Urdu", "Kannada",
    "Malayalam", "French", "German", "Spanish", "Italian", "Portuguese", "Dutch", "Russian", "Arabic", "Chinese",
    "Mandarin", "Cantonese", "Japanese", "Korean", "Lao", "Burmese", "Khmer", "Vietnamese", "Malay", "Indonesian",
  ].map((name) => [name.toLowerCase(), name] as [string, string]),
  ["angrezi", "English"], ["angreji", "English"], ["hindee", "Hindi"],
  ["ไทย", "Thai"], ["อังกฤษ", "English"], ["จีน", "Chinese"], ["ญี่ปุ่น", "Japanese"], ["ลาว", "Lao"], ["เกาหลี", "Korean"],
  ["ฝรั่งเศส", "French"], ["เยอรมัน", "German"], ["ฮินดี", "Hindi"], ["พม่า", "Burmese"], ["เขมร", "Khmer"],
]);

/** Occupations in English (single words and a few pairs); compromise's #Actor tag covers more. */
export const OCCUPATIONS = new Set([
  "teacher", "doctor", "nurse", "engineer", "developer", "programmer", "designer", "accountant", "lawyer", "student",
  "pilot", "driver", "chef", "cook", "farmer", "plumber", "electrician", "photographer", "writer", "manager", "consultant",
  "shopkeeper", "businessman", "businesswoman", "banker", "dentist", "pharmacist", "architect", "mechanic", "tailor",
  "salesman", "waiter", "waitress", "officer", "soldier", "scientist", "researcher", "professor", "lecturer", "artist",
  "musician", "journalist", "translator", "freelancer", "entrepreneur", "housewife", "homemaker", "retiree", "tutor",
  "analyst", "clerk", "cashier", "barista", "baker", "carpenter", "painter", "vet", "veterinarian", "surgeon", "therapist",
  "psychologist", "coach", "trainer", "guide", "receptionist", "secretary", "editor", "founder", "ceo", "cto", "marketer",
]);

/** Nouns that make "I run/own/have a …" a business. */
export const BUSINESS_NOUNS =
  /\b(shop|store|bakery|cafe|café|restaurant|hotel|hostel|guesthouse|guest house|resort|studio|salon|spa|business|company|firm|agency|startup|farm|bar|pub|clinic|pharmacy|gym|school|stall|boutique|workshop|factory|dukaan|dukan|franchise|kitchen|garage|brewery|shop online)\b/i;

/** Family words to the relation key, in English and romanised Hindi. */
export const RELATIONS = new Map<string, string>([
  ["wife", "wife"], ["husband", "husband"], ["son", "son"], ["daughter", "daughter"], ["mother", "mother"],
  ["mom", "mother"], ["mum", "mother"], ["father", "father"], ["dad", "father"], ["brother", "brother"],
  ["sister", "sister"], ["partner", "partner"], ["boyfriend", "partner"], ["girlfriend", "partner"],
  ["fiance", "partner"], ["fiancee", "partner"], ["grandmother", "grandmother"], ["grandfather", "grandfather"],
  ["patni", "wife"], ["biwi", "wife"], ["pati", "husband"], ["beta", "son"], ["bete", "son"], ["beti", "daughter"],
  ["maa", "mother"], ["mummy", "mother"], ["mata", "mother"], ["mataji", "mother"], ["papa", "father"],
  ["pita", "father"], ["pitaji", "father"], ["bhai", "brother"], ["bhaiya", "brother"], ["behen", "sister"],
  ["bahan", "sister"], ["didi", "sister"],
]);

/**
 * Pet words to the animal a `pet.<animal>` fact is kept under, in English, romanised Hindi and
 * Thai ("my kitten is called Mochi" is `pet.cat`). Thai "นก" (bird) is left out: it is also a
 * common nickname ("ภรรยาผมชื่อนก").
 */
export const PETS = new Map<string, string>([
  ["cat", "cat"], ["kitten", "cat"], ["dog", "dog"], ["puppy", "dog"],
  ["parrot", "parrot"], ["rabbit", "rabbit"], ["bunny", "rabbit"], ["hamster", "hamster"], ["turtle", "turtle"],
  ["tortoise", "turtle"], ["horse", "horse"], ["pony", "horse"], ["goldfish", "fish"], ["budgie", "parrot"],
  ["billi", "cat"], ["billee", "cat"], ["kutta", "dog"], ["kutte", "dog"], ["kuttey", "dog"], ["kutiya", "dog"],
  ["tota", "parrot"], ["tote", "parrot"], ["khargosh", "rabbit"],
  ["แมว", "cat"], ["หมา", "dog"], ["สุนัข", "dog"], ["น้องหมา", "dog"], ["น้องแมว", "cat"], ["นกแก้ว", "parrot"],
  ["กระต่าย", "rabbit"], ["แฮมสเตอร์", "hamster"], ["เต่า", "turtle"],
]);

/** Thai family words to the relation key, longer words first where one contains another. */
export const THAI_RELATIONS: readonly [string, string][] = [
  ["ภรรยา", "wife"], ["เมีย", "wife"], ["สามี", "husband"], ["ผัว", "husband"], ["แฟน", "partner"], ["ลูกสาว", "daughter"],
  ["ลูกชาย", "son"], ["คุณแม่", "mother"], ["แม่", "mother"], ["คุณพ่อ", "father"], ["พ่อ", "father"], ["พี่ชาย", "brother"],
  ["น้องชาย", "brother"], ["พี่สาว", "sister"], ["น้องสาว", "sister"],
];

/** `family.<relation>` or `pet.<animal>` for a word that names one ("wife", "beti", "kitten", "แมว"), or undefined. */
export function namedOneKey(word: string): string | undefined {
  const lower = word.toLowerCase();
  const relation = RELATIONS.get(lower) ?? THAI_RELATIONS.find(([thai]) => thai === word)?.[1];
  if (relation) return `family.${relation}`;
  const animal = PETS.get(lower);
  return animal ? `pet.${animal}` : undefined;
}

/** Small counts in English, romanised Hindi and Thai. */
export const COUNTS = new Map<string, number>([
  ["one", 1], ["two", 2], ["three", 3], ["four", 4], ["five", 5], ["six", 6], ["a", 1], ["an", 1],
  ["ek", 1], ["do", 2], ["teen", 3], ["char", 4], ["chaar", 4], ["paanch", 5], ["panch", 5],
  ["หนึ่ง", 1], ["สอง", 2], ["สาม", 3], ["สี่", 4], ["ห้า", 5],
]);

/** A count written as digits or as a word, or undefined. */
export function countOf(word: string): number | undefined {
  if (/^\d{1,2}$/.test(word)) return Number(word);
  return COUNTS.get(word.toLowerCase());
}

/** The canonical city or country named by `text` (English spelling), or undefined. */
export function placeOf(text: string): { name: string; kind: "city" | "country" } | undefined {
  const key = text.trim().toLowerCase();
  const city = CITIES.get(key);
  if (city) return { name: city, kind: "city" };
  const country = COUNTRIES.get(key);
  if (country) return { name: country, kind: "country" };
  const thai = THAI_PLACES.find((place) => place.name === text.trim());
  return thai ? { name: thai.name, kind: thai.kind } : undefined;
}

/** The English name of a language written in any of the covered languages, or undefined. */
export function languageOf(word: string): string | undefined {
  return LANGUAGES.get(word.trim().toLowerCase().replace(/^ภาษา/, ""));
}
