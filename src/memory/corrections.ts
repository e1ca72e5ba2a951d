import type { FactRecord } from "./records.js";
import { valueFinder } from "./redaction.js";

/**
 * Corrections: when a fact's value changed (learned anew or edited by a person), what memory
 * recalls from before the change (an event, a past message, a summary) still states the old value.
 * Such a line is shown with the change in front of it, so that no line of the memory context
 * presents an old value as current: "(since 2026-11-20 location city is Bangkok, not Chiang Mai)".
 * The facts section shows the current value only (`currentFacts`).
 */

/** One changed value: the key, a value it held before, the value it holds now (null: none) and since when. */
export interface Correction {
  key: string;
  old: string;
  current: string | null;
  since: string;
}

/** A value as values are compared: trimmed, lower case (as `valueFinder` finds them). */
const folded = (value: string) => value.trim().toLowerCase();

/** Most earlier values of one key that recalled texts are corrected for (the newest ones): a key that changes every turn, such as an order number, must not make every turn's recall scan for all it ever held. */
export const MAX_CORRECTIONS_PER_KEY = 20;

/**
 * Pure: the corrections `facts` (every version) imply against `current` (the facts true now, one
 * per key): for each current fact, each earlier value of its key that differs from it; for a key
 * with no current value (its value deleted, or expired), each value it held, current since
 * none is. At most `MAX_CORRECTIONS_PER_KEY` per key, the newest; newest change first.
 */
export function correctionsOf(facts: readonly FactRecord[], current: readonly FactRecord[]): Correction[] {
  const corrections: Correction[] = [];
  // Newest version first, so that each key's newest earlier values come first (and stay, when a key has too many).
  const byNewest = [...facts].sort((a, b) => b.validFrom.localeCompare(a.validFrom));
  const keys = new Set(current.map((fact) => fact.key));
  const retired = new Map<string, FactRecord>();
  for (const fact of byNewest) {
    const at = `${fact.key}\n${folded(fact.value)}`;
    if (!keys.has(fact.key) && !retired.has(at)) retired.set(at, fact);
  }
  for (const fact of retired.values()) corrections.push({ key: fact.key, old: fact.value, current: null, since: fact.validTo ?? fact.expiresAt ?? fact.validFrom });
  for (const now of current) {
    // Each earlier value once (by its folded form), newest first.
    const earlier = new Map<string, string>([[folded(now.value), now.value]]);
    for (const fact of byNewest) {
      if (fact.key !== now.key || fact.id === now.id || fact.validTo === null || fact.validFrom > now.validFrom || earlier.has(folded(fact.value))) continue;
      earlier.set(folded(fact.value), fact.value);
      corrections.push({ key: now.key, old: fact.value, current: now.value, since: now.validFrom });
    }
  }
  const perKey = new Map<string, number>();
  return corrections
    .sort((a, b) => b.since.localeCompare(a.since))
    .filter((c) => {
      const n = (perKey.get(c.key) ?? 0) + 1;
      perKey.set(c.key, n);
      return n <= MAX_CORRECTIONS_PER_KEY;
    });
}

const label = (key: string) => key.replace(/[._]/g, " ");
const note = (c: Correction) => (c.current === null ? `${label(c.key)} ${c.old} is no longer current` : `since ${c.since.slice(0, 10)} ${label(c.key)} is ${c.current}, not ${c.old}`);

/**
 * Pure: a function that puts in front of a text the corrections of the old values it states (and
 * whose current value it does not state too: "I moved from Chiang Mai to Bangkok" needs none).
 * One finder finds every old value, so a text costs one scan however many corrections there are;
 * a current value's finder is made only when one of its old values is found. The identity when
 * there are no corrections.
 */
export function correctionMarker(corrections: readonly Correction[]): (text: string) => string {
  const findOld = valueFinder(corrections.map((c) => c.old));
  if (!findOld) return (text) => text;
  const currents = new Map<string, ReturnType<typeof valueFinder>>();
  const statesCurrent = (c: Correction, text: string) => {
    if (c.current === null) return false;
    let find = currents.get(c.current);
    if (find === undefined) currents.set(c.current, (find = valueFinder([c.current])));
    return find !== null && find(text).length > 0;
  };
  return (text) => {
    const found = new Set(findOld(text).map((match) => folded(match.text)));
    if (found.size === 0) return text;
    const notes = corrections.filter((c) => found.has(folded(c.old)) && !statesCurrent(c, text)).map(note);
    return notes.length === 0 ? text : `(${notes.join("; ")}) ${text}`;
  };
}
