import type { Operation } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../errors.js";
import { jsonDepth } from "../json-bounds.js";
import type { ParsedImport } from "./import-schema.js";
import { namespaces } from "./namespaces.js";
import type { FactRecord } from "./records.js";
import { REDACTED } from "./redaction.js";
import type { MemoryScope } from "./scope.js";

/**
 * The records an export carries beside its messages (events, facts, summaries, idempotency
 * records of turns): which messages they point at, and which of them an import must write.
 */

type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

/** One message a record points at, and the field that names it. */
export interface MessageReference {
  field: string;
  sessionId: string;
  messageId: string;
}

/** A record's session, for records that name no message (a fact with no source). */
export interface SessionReference {
  field: string;
  sessionId: string;
}

/** Every session and message the records of `parsed` point at (fields dotted from the document's root). */
export function referencesOf(parsed: ParsedImport): { messages: MessageReference[]; sessions: SessionReference[] } {
  const messages: MessageReference[] = [];
  const sessions: SessionReference[] = [];
  const add = (field: string, sessionId: string, messageId: string) => messages.push({ field, sessionId, messageId });
  parsed.events.forEach((event, i) => add(`events.${i}.messageId`, event.sessionId, event.messageId));
  parsed.facts.forEach((fact, i) => {
    fact.sourceMessageIds.forEach((id, j) => add(`facts.${i}.sourceMessageIds.${j}`, fact.sessionId, id));
    if (fact.sourceMessageIds.length === 0) sessions.push({ field: `facts.${i}.sessionId`, sessionId: fact.sessionId });
  });
  parsed.summaries.forEach((summary, i) => {
    add(`summaries.${i}.fromMessageId`, summary.sessionId, summary.fromMessageId);
    add(`summaries.${i}.toMessageId`, summary.sessionId, summary.toMessageId);
    summary.messageIds.forEach((id, j) => add(`summaries.${i}.messageIds.${j}`, summary.sessionId, id));
  });
  parsed.turns.forEach((turn, i) => {
    add(`turns.${i}.key`, turn.sessionId, turn.key);
    if (turn.parentMessageId !== null) add(`turns.${i}.parentMessageId`, turn.sessionId, turn.parentMessageId);
  });
  parsed.entities?.forEach((node, i) => {
    node.mentions.forEach((ref, j) => add(`entities.${i}.mentions.${j}`, ref.sessionId, ref.messageId));
    node.relations.forEach((edge, j) => edge.sources.forEach((ref, k) => add(`entities.${i}.relations.${j}.sources.${k}`, ref.sessionId, ref.messageId)));
  });
  return { messages, sessions };
}

/** UNKNOWN_REFERENCE naming `field`: the record points at something neither the import nor the store holds. */
export function unknownReference(field: string, what: string): MemoryGraphError {
  return new MemoryGraphError("UNKNOWN_REFERENCE", `${field}: ${what} is neither in this import nor stored; nothing was imported`, {
    kind: "user",
    field,
  });
}

/**
 * Throws INVALID_INPUT naming the second of two records of one layer under one id (a turn record:
 * one key in one session): each would overwrite the other while the counts took both.
 */
export function assertUniqueIds(parsed: ParsedImport): void {
  const check = <T>(layer: string, records: readonly T[], idOf: (record: T) => string, field: string, what: (record: T) => string) => {
    const seen = new Map<string, number>();
    records.forEach((record, i) => {
      const first = seen.get(idOf(record));
      if (first !== undefined) throw invalidRecord(`${layer}.${i}.${field}`, `${what(record)} appears twice (${layer}.${first} and ${layer}.${i}): one record per id`);
      seen.set(idOf(record), i);
    });
  };
  check("events", parsed.events, (e) => e.id, "id", (e) => `the event ${e.id}`);
  check("facts", parsed.facts, (f) => f.id, "id", (f) => `the fact ${f.id}`);
  check("summaries", parsed.summaries, (s) => s.id, "id", (s) => `the summary ${s.id}`);
  check("turns", parsed.turns, (t) => JSON.stringify([t.sessionId, t.key]), "key", (t) => `the turn record ${t.key} of session ${t.sessionId}`);
  check("entities", parsed.entities ?? [], (n) => n.key, "key", (n) => `the entity node ${JSON.stringify(n.key)}`);
}

/**
 * Throws INVALID_INPUT naming the first edge of the document's graph whose other end is not a node
 * of the document: an export carries the whole graph, each edge on both of its nodes. An edge whose
 * target a deleted value was cut out of (it holds `REDACTED`; its node went with the value) is kept
 * as the user's graph keeps it.
 */
export function assertGraphClosed(parsed: ParsedImport): void {
  const nodes = parsed.entities ?? [];
  const keys = new Set(nodes.map((node) => node.key));
  nodes.forEach((node, i) =>
    node.relations.forEach((edge, j) => {
      if (!keys.has(edge.to) && !edge.to.includes(REDACTED)) throw invalidRecord(`entities.${i}.relations.${j}.to`, `no node ${JSON.stringify(edge.to)} in this document's entities: an edge joins two of its nodes`);
    }),
  );
}

/**
 * Throws INVALID_INPUT naming the imported fact that would make a second current version
 * (`validTo` null) of its key, counting the user's stored facts (`stored`) that the import does not
 * write over: as live writes keep it, a key has at most one current value, so the prompt never
 * holds two answers to one question.
 */
export function assertOneCurrentPerKey(facts: ParsedImport["facts"], stored: readonly FactRecord[]): void {
  const imported = new Set(facts.map((fact) => fact.id));
  const current = new Map<string, string>();
  for (const fact of stored) if (fact.validTo === null && !imported.has(fact.id)) current.set(fact.key, `the stored fact ${fact.id}`);
  facts.forEach((fact, i) => {
    if (fact.validTo !== null) return;
    const other = current.get(fact.key);
    if (other !== undefined) {
      throw invalidRecord(`facts.${i}.validTo`, `the key ${fact.key} already has a current version (${other}); a key has one current value: give the older one its valid_to`);
    }
    current.set(fact.key, `facts.${i}, ${fact.id}`);
  });
}

function invalidRecord(field: string, message: string): MemoryGraphError {
  return new MemoryGraphError("INVALID_INPUT", `${field}: ${message}; nothing was imported`, { kind: "user", field });
}

/** One record of a layer, where it is written. */
export interface LayerRecord {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  layer: "events" | "facts" | "summaries" | "turns";
}

/** The records of every layer in `parsed`, keyed as their layers write them. */
export function layerRecordsOf(user: UserScope, parsed: ParsedImport): LayerRecord[] {
  const records: LayerRecord[] = [];
  for (const layer of ["events", "facts", "summaries"] as const) {
    for (const record of parsed[layer]) records.push({ namespace: namespaces[layer](user), key: record.id, value: { ...record }, layer });
  }
  for (const { sessionId, ...turn } of parsed.turns) {
    records.push({ namespace: namespaces.turns({ ...user, sessionId }), key: turn.key, value: { ...turn }, layer: "turns" });
  }
  return records;
}

/**
 * The puts of the layer records that differ from what is stored under their keys (`stored`, in the
 * same order; null for none), and how many of each layer that is: an import sent again writes none.
 */
export function layerWrites(records: readonly LayerRecord[], stored: readonly unknown[]): { puts: Operation[]; written: Record<LayerRecord["layer"], number> } {
  const written = { events: 0, facts: 0, summaries: 0, turns: 0 };
  const puts: Operation[] = [];
  records.forEach((record, i) => {
    if (sameJson(stored[i], record.value)) return;
    written[record.layer] += 1;
    puts.push({ namespace: record.namespace, key: record.key, value: record.value, index: false });
  });
  return { puts, written };
}

/** Deepest stored value compared: anything deeper (stored before inputs were bounded) is written over. */
const MAX_COMPARED_DEPTH = 64;

/** Whether two JSON values are equal, whatever the order of their keys. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (jsonDepth(a, MAX_COMPARED_DEPTH) > MAX_COMPARED_DEPTH || jsonDepth(b, MAX_COMPARED_DEPTH) > MAX_COMPARED_DEPTH) return false;
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`).join(",")}}`;
}
