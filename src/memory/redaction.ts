import type { BaseStore, Item, Operation } from "@langchain/langgraph-checkpoint";
import { namespaces } from "./namespaces.js";
import type { SummaryRecord, TranscriptRecord } from "./records.js";
import type { UserScope } from "./scope.js";
import { listAll } from "./store-io.js";
import { staleSummaryWrites } from "./summary-staleness.js";

/**
 * Redaction: what a person deletes (a fact's value) leaves every layer the model reads. The value
 * is found by its text, not by lineage alone: a value stated in one message is echoed in replies,
 * events, summaries, stored turn results and session titles, and a scan of everything stored under
 * the user catches each of them, including a layer added after this module (it lives under the
 * user's namespace like every other). What each layer becomes, once, here:
 *
 * | layer | after redaction |
 * |---|---|
 * | transcript message | the value replaced by `REDACTED` (text, speaker, file captions), `redacted: true`, re-indexed (text and vector) |
 * | summary | the value replaced, marked `stale` (left out of recall until rewritten) |
 * | entity-graph node | deleted when its name (or key) is the value; otherwise as every other record |
| every other record (events, turn results, titles, …) | every string in it with the value replaced, but ids, keys, references and times |
 * | facts | not touched here: the caller deletes the versions that state the value |
 *
 * The session windows (checkpoints) hold copies too: the facade redacts them with
 * `SessionWindowEdits.redact` under each session's turn lock.
 */

/** What stands where a deleted value was, in every layer (export, API and inspector show it as is). */
export const REDACTED = "[removed]";

/** Whether a character is a letter or digit of a script that separates words with spaces. */
const SPACED = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Devanagari}\p{N}]/u;

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A letter or digit of any script: what may not stand next to a whole-word match. */
const WORD = /[\p{L}\p{N}]/u;

/** Where one value was found in a text: `text.slice(start, end)` is it, as written there. */
export interface Found {
  start: number;
  end: number;
  text: string;
}

/**
 * Pure: a function that finds every occurrence of any of `values` in a text, left to right
 * (case-insensitive; the longest value first where two start at one place; a value beginning or
 * ending with a letter or digit of a spaced script is found only as a whole word there, so "Ann" is
 * not found in "Annual", while Thai and other unspaced scripts are found anywhere). Null when no
 * value is worth finding (empty after trimming). The pattern is plain alternation and the word
 * edges are checked here: a pattern with letter classes under the `iu` flags costs V8 about 0.3 ms
 * to compile for each value (measured), and recall makes one every turn from values that change.
 */
export function valueFinder(values: Iterable<string>): ((text: string) => Found[]) | null {
  const distinct = [...new Set([...values].map((value) => value.trim()).filter((value) => value !== ""))].sort((a, b) => b.length - a.length);
  if (distinct.length === 0) return null;
  const pattern = new RegExp(distinct.map(escape).join("|"), "giu");
  const standsAlone = (text: string, start: number, end: number) => {
    const match = text.slice(start, end);
    if (SPACED.test(match.at(0) ?? "") && start > 0 && WORD.test(text[start - 1] ?? "")) return false;
    return !(SPACED.test(match.at(-1) ?? "") && end < text.length && WORD.test(text[end] ?? ""));
  };
  return (text) => {
    const found: Found[] = [];
    for (const match of text.matchAll(pattern)) {
      const end = match.index + match[0].length;
      if (standsAlone(text, match.index, end)) found.push({ start: match.index, end, text: match[0] });
    }
    return found;
  };
}

/** Pure: a function that replaces every occurrence of any of `values` (see `valueFinder`) with `REDACTED`; null when there is nothing to find. */
export function redactor(values: Iterable<string>): ((text: string) => string) | null {
  const find = valueFinder(values);
  if (!find) return null;
  return (text) => {
    let out = "";
    let at = 0;
    for (const { start, end } of find(text)) {
      out += text.slice(at, start) + REDACTED;
      at = end;
    }
    return at === 0 ? text : out + text.slice(at);
  };
}

/**
 * Fields that name or date things rather than say them (ids, keys, references, times, roles and
 * kinds): never redacted, so a value that happens to equal part of an id ("order-42" and the value
 * "42") cannot break a reference between records.
 */
const NAMING_FIELD = /^(id|key|role|kind|status|type|model|language)$|Ids?$|At$|^valid(From|To)$/;

/**
 * Pure: `value` with `redact` applied to every string in it but those of naming fields (see
 * `NAMING_FIELD`; keys kept); the same object when nothing changed.
 */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) {
    const list: readonly unknown[] = value;
    const items = list.map((item) => redactDeep(item, redact));
    return items.some((item, i) => item !== list[i]) ? (items as T) : value;
  }
  if (value !== null && typeof value === "object") {
    let changed = false;
    const entries = Object.entries(value as Record<string, unknown>).map(([key, field]) => {
      const next = NAMING_FIELD.test(key) ? field : redactDeep(field, redact);
      if (next !== field) changed = true;
      return [key, next] as const;
    });
    return changed ? (Object.fromEntries(entries) as T) : value;
  }
  return value;
}

/** What a redaction rewrote: stored messages, summaries (all now stale), and other records (events, turn results, titles). */
export interface RedactionCounts {
  messages: number;
  summaries: number;
  records: number;
}

/**
 * The writes that take `values` out of everything stored under `user` but its facts, and mark stale
 * the summaries covering `sourceIds` (the messages the values were learned from) even where the
 * summary does not quote them word for word. Reads only; the caller writes them in one batch with
 * its own (the fact deletes), so a failure leaves memory as it was.
 */
export async function redactionWrites(
  store: BaseStore,
  user: UserScope,
  values: Iterable<string>,
  sourceIds: ReadonlySet<string>,
): Promise<{ writes: Operation[]; counts: RedactionCounts }> {
  const counts: RedactionCounts = { messages: 0, summaries: 0, records: 0 };
  const redact = redactor(values);
  if (!redact) {
    // Nothing to cut out (every value is still stated by a remaining fact): only the summaries of its sources go stale.
    const writes = await staleSummaryWrites(store, user, sourceIds);
    return { writes, counts: { ...counts, summaries: writes.length } };
  }
  const layout: Layout = {
    facts: namespaces.facts(user).join("\n"),
    summaries: namespaces.summaries(user).join("\n"),
    // Memory-context records hold ids only (what a turn showed): nothing in them states a value.
    contexts: namespaces.allTurnContexts(user).join("\n"),
    entities: namespaces.entities(user).join("\n"),
    entityTails: namespaces.entityTails(user).join("\n"),
    sessionsDepth: namespaces.sessions(user).length,
  };
  const writes: Operation[] = [];
  const items = await listAll(store, namespaces.user(user), { cap: Number.MAX_SAFE_INTEGER });
  const tails = new Set(items.filter((item) => item.namespace.join("\n") === layout.entityTails).map((item) => item.key));
  for (const item of items) {
    const write = redactItem(item, redact, sourceIds, layout);
    if (!write) continue;
    const { kind, ...operation } = write;
    writes.push(operation);
    counts[kind] += 1;
    // A deleted node's tail (the sources added since it was written, graph-store.ts) goes with it, uncounted.
    if ("value" in operation && operation.value === null && item.namespace.join("\n") === layout.entities && tails.has(item.key)) writes.push({ namespace: namespaces.entityTails(user), key: item.key, value: null });
  }
  return { writes, counts };
}

type KindedPut = Operation & { kind: "messages" | "summaries" | "records" };

/** Where a user's layers are: the facts', summaries' and memory-context records' namespaces (joined), and the depth of the sessions' prefix. */
interface Layout {
  facts: string;
  summaries: string;
  contexts: string;
  entities: string;
  entityTails: string;
  sessionsDepth: number;
}

/** The write that redacts one stored item (see the table above); null when it has nothing to change. */
function redactItem(item: Item, redact: (text: string) => string, sourceIds: ReadonlySet<string>, layout: Layout): KindedPut | null {
  const { namespace, key } = item;
  const joined = namespace.join("\n");
  if (joined === layout.facts || namespace.slice(0, -1).join("\n") === layout.contexts) return null;
  // A transcript is <sessions prefix>/<session label>/messages.
  if (namespace.length === layout.sessionsDepth + 2 && namespace[layout.sessionsDepth - 1] === "sessions" && namespace.at(-1) === "messages") {
    const record = item.value as unknown as TranscriptRecord;
    // The text, and what else it says: the speaker's name, file captions.
    const redacted = redactDeep(record, redact);
    if (redacted === record) return null;
    // Re-indexed: its full-text row and vector are made from the redacted text (an unrecallable message stays unindexed).
    return { kind: "messages", namespace, key, value: { ...redacted, redacted: true }, ...(record.recall === false ? { index: false as const } : {}) };
  }
  if (joined === layout.summaries) {
    const summary = item.value as unknown as SummaryRecord;
    const text = redact(summary.text);
    const covers = summary.messageIds.some((id) => sourceIds.has(id));
    if (text === summary.text && (!covers || summary.stale)) return null;
    return { kind: "summaries", namespace, key, value: { ...summary, text, stale: true }, index: false };
  }
  if (joined === layout.entities) {
    // An entity-graph node named by the value goes whole (its key is the value); others have it cut out below.
    const { name } = item.value as { name?: unknown };
    if ((typeof name === "string" && redact(name) !== name) || redact(key) !== key) return { kind: "records", namespace, key, value: null };
  }
  const value = redactDeep(item.value, redact);
  return value === item.value ? null : { kind: "records", namespace, key, value, index: false };
}
