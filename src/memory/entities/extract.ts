/**
 * Offline extraction of entities and relations from one message, by surface rules only (no model,
 * no NLP library: it runs on every stored message at write time and must cost microseconds).
 *
 * - Entities: runs of capitalised words that do not start a sentence ("Priya", "New York"), typed
 *   by the word before them ("in/to/from Pune" → place), a company suffix ("Acme Inc" →
 *   organization), else person; the message's speaker, when it names one, is the subject of "I".
 * - Relations: kinship and social ties ("my sister Priya" → speaker —sister→ Priya, and "sister" an
 *   alias of Priya), where someone lives or moved ("Priya moved to Pune", "I moved from Sweden"),
 *   works or studies ("works at Acme"). A relation type in `FUNCTIONAL` holds one value at a time:
 *   a newer one supersedes it (see entity-graph.ts).
 * - Coreference: a sentence that opens with "she/he/they/usko/unko/woh" is about the last person of
 *   the session (`active`), which it mentions too.
 */

/** What kind of thing an entity is. */
export type EntityKind = "person" | "place" | "organization";

/** One entity a message names (`key` is its normalised name, the graph's node id). */
export interface ExtractedEntity {
  key: string;
  name: string;
  kind: EntityKind;
  /** Common nouns it was called by in this message ("sister" in "my sister Priya"). */
  aliases: string[];
  /** False for the speaker when only their "I" is read: the message is not one that names them. */
  mentioned?: boolean;
}

/** One relation a message states: `from` and `to` are entity keys. */
export interface ExtractedRelation {
  from: string;
  type: string;
  to: string;
}

export interface Extraction {
  entities: ExtractedEntity[];
  relations: ExtractedRelation[];
}

/** Relation types that hold one value at a time for a subject: a newer one ends the older. */
export const FUNCTIONAL = new Set(["lives_in", "works_at", "studies_at", "partner"]);

export const KIN: ReadonlySet<string> = new Set([
  "sister", "brother", "mother", "mom", "mum", "father", "dad", "son", "daughter", "wife", "husband", "partner", "girlfriend",
  "boyfriend", "friend", "cousin", "aunt", "uncle", "grandma", "grandmother", "grandpa", "grandfather", "niece", "nephew", "boss",
  "colleague", "coworker", "roommate", "neighbour", "neighbor", "mentor", "teacher", "doctor", "fiance", "fiancee", "kid", "child",
  "dog", "cat", "puppy",
]);
export const PARTNER: ReadonlySet<string> = new Set(["wife", "husband", "partner", "girlfriend", "boyfriend", "fiance", "fiancee"]);
const NOT_NAMES = new Set([
  "I", "I'm", "I'd", "I'll", "I've", "OK", "Ok", "Okay", "Mr", "Mrs", "Ms", "Dr", "Sir", "Madam", "Please", "Thanks", "Thank", "Hi",
  "Hello", "Hey", "Yes", "Yeah", "No", "Wow", "Oh", "Aww", "Awesome", "Great", "Congrats", "Sure", "Sorry", "Lol", "Haha",
  "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "January", "February", "March", "April", "May",
  "June", "July", "August", "September", "October", "November", "December", "The", "This", "That", "It", "My", "Your", "We",
  "You", "He", "She", "They", "Our", "Their", "His", "Her", "What", "When", "Where", "Why", "How", "Who", "Which", "And", "But",
  "So", "If", "Is", "Are", "Do", "Did", "Can", "Could", "Would", "Should", "Will", "Have", "Has", "Also", "Just", "Really",
  "Christmas", "Easter", "Thanksgiving", "God", "LGBTQ", "LGBTQ+", "TV",
]);
const ORG_SUFFIX = /\b(?:Inc|Ltd|LLC|Corp|Co|Company|Bank|University|College|School|Hospital|Institute|Foundation|Group|Labs?)$/;
const PLACE_BEFORE = new Set(["in", "to", "from", "at", "near", "visited", "visit", "visiting", "around"]);
const PRONOUN_START = /^(?:she|he|they|usko|unko|woh|wo|uska|uski|unka|unki)\b/i;
const WORD = /[A-Za-z][A-Za-z'’+-]*/g;
/** A run of more capitalised words than this is a title or shouting, not a name. */
const MAX_NAME_WORDS = 5;
/** Most entities one message adds: a bound on the nodes one stored message reads and writes. */
export const MAX_ENTITIES_PER_MESSAGE = 24;

/** The node id of a name: lower-cased, inner spaces single, a trailing possessive dropped. */
export function entityKey(name: string): string {
  return name
    .trim()
    .replace(/['’]s$/i, "")
    .toLowerCase()
    .replace(/\s+/g, " ");
}

function cleanName(word: string): string {
  return word.replace(/['’]s$/, "").replace(/[+-]+$/, "");
}

function isNameWord(word: string): boolean {
  return /^[A-Z][a-z]+(?:-[A-Z][a-z]+)?$/.test(word) && !NOT_NAMES.has(word);
}

/** The capitalised runs of one sentence that are not its first word, with the word before each. */
function namesOf(sentence: string): { name: string; before: string; end: number }[] {
  const found: { name: string; before: string; end: number }[] = [];
  const words = [...sentence.matchAll(WORD)];
  let run: string[] = [];
  let before = "";
  let end = 0;
  words.forEach((match, i) => {
    const word = cleanName(match[0]);
    const possessive = /['’]s$/.test(match[0]);
    if (i > 0 && isNameWord(word)) {
      if (run.length === 0) before = (words[i - 1]?.[0] ?? "").toLowerCase();
      run.push(word);
      end = (match.index ?? 0) + match[0].length;
      if (!possessive) return;
    }
    if (run.length > 0 && run.length <= MAX_NAME_WORDS) found.push({ name: run.join(" "), before, end });
    run = [];
  });
  if (run.length > 0 && run.length <= MAX_NAME_WORDS) found.push({ name: run.join(" "), before, end });
  return found;
}

/** Whether a name between `head` and `tail` of its sentence addresses someone: after a greeting or thanks, or set off by commas at either end. */
function isVocative(head: string, tail: string): boolean {
  const before = head.trim();
  if (before === "" || /^(?:hey|hi|hello|thanks|thank you|wow|congrats|congratulations|oh|aw+|yes|yeah|no|sorry|ok|okay|dear|good morning|good night)[\s,!]*$/i.test(before)) return true;
  return /,$/.test(before) && (tail.trim() === "" || /^[,!?]/.test(tail.trim()));
}

function kindOf(name: string, before: string): EntityKind {
  if (ORG_SUFFIX.test(name)) return "organization";
  if (PLACE_BEFORE.has(before)) return "place";
  return "person";
}

const MOVE = /\b(moved|relocated|moving|relocating)\s+(to|from)\s+(?:the\s+)?$/i;
const LIVE = /\b(?:lives?|living|stays?|staying|based)\s+(?:in|at)\s+$/i;
const WORK = /\b(?:works?|working|job|interning|employed)\s+(?:at|for|with)\s+$/i;
const STUDY = /\b(?:studies|study|studying|enrolled)\s+(?:at|in)\s+$/i;
const MY_KIN = /\bmy\s+(?:(?:little|big|older|younger|best|elder|new|old)\s+)?([a-z]+)\s*,?\s*$/i;

/** The relation the words before a name state about it (`place`: the name is a place), if any. */
function relationIn(head: string): { type: string; place: boolean } | undefined {
  const move = MOVE.exec(head);
  if (move) return { type: move[2]?.toLowerCase() === "from" ? "moved_from" : "lives_in", place: true };
  if (LIVE.test(head)) return { type: "lives_in", place: true };
  if (WORK.test(head)) return { type: "works_at", place: false };
  if (STUDY.test(head)) return { type: "studies_at", place: false };
  return undefined;
}

/**
 * Entities and relations of one message said by `speaker` (its key is the subject of "I" and
 * "my"), `active` the key of the session's last person (for "she", "usko"). Pure.
 */
export function extractFromMessage(text: string, speaker: string | undefined, active?: string): Extraction {
  const entities = new Map<string, ExtractedEntity>();
  const relations: ExtractedRelation[] = [];
  const self = speaker ? entityKey(speaker) : undefined;
  const add = (name: string, kind: EntityKind): string => {
    const key = entityKey(name);
    const known = entities.get(key);
    if (!known) entities.set(key, { key, name, kind, aliases: [] });
    else delete known.mentioned;
    return key;
  };
  if (self && speaker) entities.set(self, { key: self, name: speaker.trim(), kind: "person", aliases: [], mentioned: false });
  for (const raw of text.split(/[.!?\n;]+/)) {
    const sentence = raw.trim();
    if (sentence === "") continue;
    let subject = self;
    if (active && PRONOUN_START.test(sentence)) {
      subject = active;
      const known = entities.get(active);
      if (!known) entities.set(active, { key: active, name: active, kind: "person", aliases: [] });
      else delete known.mentioned;
    }
    for (const { name, before, end } of namesOf(sentence)) {
      const start = sentence.indexOf(name);
      const head = sentence.slice(0, start);
      // A name the speaker calls someone by ("Thanks, Mel!", "Hey Ann") addresses them: it says nothing about them.
      if (isVocative(head, sentence.slice(end))) continue;
      if (!entities.has(entityKey(name)) && entities.size >= MAX_ENTITIES_PER_MESSAGE) break;
      const key = add(name, kindOf(name, before));
      const entity = entities.get(key) as ExtractedEntity;
      const kin = MY_KIN.exec(head)?.[1]?.toLowerCase();
      if (kin && KIN.has(kin)) {
        entity.kind = "person";
        if (!entity.aliases.includes(kin)) entity.aliases.push(kin);
        if (self) relations.push({ from: self, type: PARTNER.has(kin) ? "partner" : kin, to: key });
        continue;
      }
      // The subject of the clause: a name just before the verb, else the speaker (or the pronoun's person).
      const clause = head.split(/,|\band\b|\bbut\b/).pop() ?? head;
      // A clause may open with its subject's name ("Jordan works at …"): read it as if a word came before.
      const named = namesOf(`x ${clause}`).at(-1);
      const stated = relationIn(head);
      if (!stated) continue;
      const from = named ? add(named.name, "person") : subject;
      if (!from || from === key) continue;
      // Where one works or studies is an organisation, whatever the preposition before it suggested ("works at Infosys").
      if (stated.place) entity.kind = "place";
      else if (stated.type !== "lives_in") entity.kind = "organization";
      relations.push({ from, type: stated.type, to: key });
    }
  }
  return { entities: [...entities.values()], relations: dedupe(relations) };
}

function dedupe(relations: ExtractedRelation[]): ExtractedRelation[] {
  const seen = new Set<string>();
  return relations.filter((r) => {
    const id = `${r.from}\u0000${r.type}\u0000${r.to}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** Whether a sentence of `text` opens with a pronoun ("she", "usko"): its subject is the session's active person. */
export function opensWithPronoun(text: string): boolean {
  return text.split(/[.!?\n;]+/).some((sentence) => PRONOUN_START.test(sentence.trim()));
}

/** The entity keys a query names (its capitalised words, the first too: a query may open with a name). Pure. */
export function queryEntityKeys(query: string): string[] {
  const keys = new Set<string>();
  for (const raw of query.split(/[.!?\n;]+/)) {
    const sentence = raw.trim();
    // A query may open with a name: read it as if a word came before.
    for (const { name } of namesOf(`x ${sentence}`)) {
      keys.add(entityKey(name));
      // "Caroline Smith" also seeds "caroline" and "smith": a graph may know only one of them.
      const parts = name.split(" ");
      if (parts.length > 1) for (const part of parts) keys.add(entityKey(part));
    }
  }
  for (const match of query.matchAll(/\bmy\s+([a-z]+)\b/gi)) {
    const kin = match[1]?.toLowerCase() ?? "";
    if (KIN.has(kin)) keys.add(aliasKey(kin));
  }
  return [...keys];
}

/** The graph key under which an alias ("sister") points at the entities it named. */
export function aliasKey(alias: string): string {
  return `~${alias.toLowerCase()}`;
}
