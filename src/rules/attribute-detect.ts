import { extractFacts } from "./facts/index.js";

export { findEmails } from "./facts/contacts.js";
import { findPhones as phonesIn } from "./facts/contacts.js";

/** A user attribute or fact stated in a message, e.g. `{ key: "phone", value: "+66 81 234 5678" }`. */
export interface AttributeUpdate {
  key: string;
  value: string;
}

/** Phone numbers in the text, as written (see the fact extractor for what counts as one). */
export function findPhones(text: string): string[] {
  return phonesIn(text).map((phone) => phone.value);
}

/**
 * The attributes a message states about its author (see `extractFacts`): contact details, name,
 * location, occupation, business, languages, dates, family, likes and dislikes. Deterministic;
 * returns [] when none.
 */
export function detectAttributeUpdates(text: string): AttributeUpdate[] {
  return extractFacts(text);
}
