import { entityKey, KIN, MAX_ENTITIES_PER_MESSAGE, PARTNER, type EntityKind, type ExtractedEntity, type ExtractedRelation, type Extraction } from "./extract.js";

/**
 * The entity graph's part of a model's classification: the entities it named ("person:Priya",
 * "place:Pune", "organization:Infosys") and the relations it read ("Priya|sister_of|I"), as an
 * `Extraction` in the offline rules' terms, so that both land on the same nodes and edges and a
 * message read by both is merged (`mergeExtractions`), not counted twice.
 */

/** One relation a model stated: subject, relation type, object (names as written; "I" the speaker). */
export interface StatedRelation {
  from: string;
  type: string;
  to: string;
}

/** Most relations one classification adds. */
export const MAX_MODEL_RELATIONS = 24;

const KINDS: Record<string, EntityKind> = {
  person: "person",
  people: "person",
  name: "person",
  place: "place",
  city: "place",
  country: "place",
  location: "place",
  town: "place",
  organization: "organization",
  organisation: "organization",
  org: "organization",
  company: "organization",
  employer: "organization",
  school: "organization",
  university: "organization",
};
const SELF = new Set(["i", "me", "myself", "user", "the user"]);
/** Relation types a model may word otherwise, in the offline rules' words. */
const SAME_AS: Record<string, string> = {
  lives_at: "lives_in",
  moved_to: "lives_in",
  relocated_to: "lives_in",
  based_in: "lives_in",
  works_for: "works_at",
  employed_at: "works_at",
  employed_by: "works_at",
  studies_in: "studies_at",
  married_to: "partner",
  spouse_of: "partner",
  partner_of: "partner",
};
const TYPE_OF_OBJECT: Record<string, EntityKind> = { lives_in: "place", moved_from: "place", works_at: "organization", studies_at: "organization" };

/** A relation type as the graph keeps it: lower snake_case, at most 40 characters; "" for none. */
export function relationType(type: string): string {
  const snake = type.trim().toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 40);
  return SAME_AS[snake] ?? snake;
}

/**
 * The extraction of a classification's `entities` (typed pairs: only people, places and
 * organisations feed the graph) and `relations`, said by `speaker` (its key, the subject of "I").
 * "X|sister_of|I" is read as the rules read "my sister X": speaker —sister→ X, "sister" an alias of
 * X. A relation's ends are entities of the message (made so when the model did not list them). The
 * speaker is keyed as the rules key it ("Melanie" → `melanie`), so the two extractions meet.
 * Bounded as the offline rules are. Pure.
 */
export function extractionOfClassified(entities: readonly { type: string; value: string }[], relations: readonly StatedRelation[], speaker: string): Extraction {
  const nodes = new Map<string, ExtractedEntity>();
  const self = entityKey(speaker);
  const add = (name: string, kind: EntityKind): string | undefined => {
    const trimmed = name.trim();
    if (SELF.has(trimmed.toLowerCase())) {
      // The speaker, as the rules have them: a node of the message that the message does not name.
      if (!nodes.has(self)) nodes.set(self, { key: self, name: speaker.trim(), kind: "person", aliases: [], mentioned: false });
      return self;
    }
    const key = entityKey(trimmed);
    if (key === "" || key.startsWith("~") || key.length > 200) return undefined;
    if (!nodes.has(key)) {
      if (nodes.size >= MAX_ENTITIES_PER_MESSAGE) return undefined;
      nodes.set(key, { key, name: trimmed, kind, aliases: [] });
    }
    return key;
  };
  for (const entity of entities) {
    const kind = KINDS[entity.type.trim().toLowerCase()];
    if (kind) add(entity.value, kind);
  }
  const out: ExtractedRelation[] = [];
  for (const stated of relations.slice(0, MAX_MODEL_RELATIONS)) {
    let type = relationType(stated.type);
    let [subject, object] = [stated.from, stated.to];
    const inverse = type.endsWith("_of") ? type.slice(0, -3) : "";
    // "Priya is my sister" comes as Priya|sister_of|I: the rules' speaker —sister→ Priya.
    if (KIN.has(inverse)) [type, subject, object] = [inverse, object, subject];
    if (type === "") continue;
    const from = add(subject, "person");
    const to = add(object, TYPE_OF_OBJECT[type] ?? "person");
    if (!from || !to || from === to) continue;
    const toNode = nodes.get(to);
    if (KIN.has(type) && toNode) {
      toNode.kind = "person";
      // As the rules keep "my wife Priya": the word an alias of Priya, the edge "partner".
      if (from === self && !toNode.aliases.includes(type)) toNode.aliases.push(type);
    }
    out.push({ from, type: PARTNER.has(type) ? "partner" : type, to });
  }
  return { entities: [...nodes.values()], relations: out };
}

/**
 * Two extractions of one message as one: entities united by key (the first's kind and name kept,
 * aliases united; named by either is named), relations united. Pure.
 */
export function mergeExtractions(a: Extraction, b: Extraction): Extraction {
  const entities = new Map(a.entities.map((entity) => [entity.key, { ...entity, aliases: [...entity.aliases] }]));
  for (const entity of b.entities) {
    const known = entities.get(entity.key);
    if (!known) {
      entities.set(entity.key, { ...entity, aliases: [...entity.aliases] });
      continue;
    }
    for (const alias of entity.aliases) if (!known.aliases.includes(alias)) known.aliases.push(alias);
    if (entity.mentioned !== false) delete known.mentioned;
  }
  const seen = new Set<string>();
  const relations = [...a.relations, ...b.relations].filter((r) => {
    const id = `${r.from}\u0000${r.type}\u0000${r.to}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  return { entities: [...entities.values()], relations };
}
