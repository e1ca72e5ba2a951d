// The adverbs share one `\s+` and the verb ends with `(?!\w)` (the same as `\b` after a letter):
// written with `\b` and an `\s+` per adverb, V8 took 8-10 ms to compile it on its first use (on
// the first turn's path), ten times what this form takes.
/**
 * Someone telling what they did ("I just signed up for a pottery class", "we went camping"): the
 * classification gate's signal `first_person_event`, and recall's event marker (`EVENT_MARKER`).
 */
export const FIRST_PERSON_EVENT =
  /\b(?:i|we)(?:'ve| have| had|'d)?\s+(?:(?:just|finally|recently|also|already|never|always)\s+)?(?:went|got|did|made|started|finished|joined|visited|bought|sold|saw|met|took|had|tried|found|learned|learnt|won|lost|moved|adopted|signed|painted|played|read|wrote|ran|cooked|built|been|booked|ordered|paid|received|changed|quit|left|married|graduated|applied|hired|launched|opened|broke|fixed|planned|decided|gave|spent|traveled|travelled|returned|lived|worked|studied|taught|volunteered|attended|hosted|celebrated)(?!\w)/i;
