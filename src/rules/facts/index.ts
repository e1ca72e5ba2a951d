import type { CountryCode } from "libphonenumber-js";
import { detectLanguage } from "../text-signals.js";
import { contactFacts, contactPreference, timezoneFact } from "./contacts.js";
import { dateFacts } from "./dates.js";
import { englishFacts } from "./english.js";
import { type Found, mergeFound } from "./found.js";
import { hindiFacts } from "./hindi.js";
import { orderFacts } from "./orders.js";
import { thaiFacts } from "./thai.js";

/** A fact stated in a message: `{ key: "location.city", value: "Chiang Mai" }`. */
export interface ExtractedFact {
  key: string;
  value: string;
}

const COUNTRY_OF_LANGUAGE: Record<string, CountryCode> = { th: "TH", hi: "IN" };

/**
 * The facts a user message states about its author, without a model: contact details (phone
 * numbers checked with libphonenumber-js, e-mail, LINE and WhatsApp), name, location, occupation,
 * business, languages, time zone, birthday and anniversary (chrono-node, plus Thai month names),
 * age, family (`family.<relation>`), pets (`pet.<animal>`, the pet's name), the order number
 * (`order_number`), and likes and dislikes (several per message, one fact per item: `likes.<item>`).
 * English is read with compromise's tags; Thai and romanised Hindi with rules. One value per
 * single-valued key; deterministic; [] when the message states nothing about its author.
 */
export function extractFacts(text: string, language: string = detectLanguage(text)): ExtractedFact[] {
  const message = text.trim();
  if (!message) return [];
  const found: Found[] = [...contactFacts(message, COUNTRY_OF_LANGUAGE[language]), ...dateFacts(message), ...orderFacts(message)];
  const preference = contactPreference(message);
  if (preference) found.push(preference);
  const zone = timezoneFact(message);
  if (zone) found.push(zone);
  if (language === "th") found.push(...thaiFacts(message));
  else if (language === "hi") found.push(...hindiFacts(message));
  else found.push(...englishFacts(message));
  return mergeFound(found);
}
