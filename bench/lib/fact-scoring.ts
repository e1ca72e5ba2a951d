/**
 * Scoring of extracted facts against the labelled set in test/fixtures/extraction: precision and
 * recall of (key, value) pairs per key and per language, and the share of messages whose event
 * type matches. Values are compared after normalising case, spaces and end punctuation; phone
 * numbers by their digits; `languages` as a set; free-text values also when one contains the
 * other as whole words.
 */
import fs from "node:fs";
import path from "node:path";

export interface LabelledMessage {
  lang: "en" | "th" | "hi";
  text: string;
  type: string;
  facts: [string, string][];
}

export interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

export interface Scores extends Counts {
  precision: number;
  recall: number;
}

export interface Prediction {
  type: string;
  facts: { key: string; value: string }[];
}

export interface CaseResult {
  message: LabelledMessage;
  predicted: Prediction;
  missed: [string, string][];
  extra: [string, string][];
}

const FREE_TEXT = new Set(["occupation", "business", "likes", "dislikes"]);

export function loadLabelled(part: "dev" | "held-out"): LabelledMessage[] {
  const file = path.join(import.meta.dirname, "..", "..", "test", "fixtures", "extraction", `${part}.json`);
  return JSON.parse(fs.readFileSync(file, "utf8")) as LabelledMessage[];
}

/** The key a fact is scored under: `likes.coffee` counts as `likes`. */
export function familyOf(key: string): string {
  return key.replace(/^(likes|dislikes)\..*$/, "$1");
}

function norm(value: string): string {
  return value.toLowerCase().replace(/[\s\u200b]+/g, " ").replace(/^[\s"'“”]+|[\s.,!?"'“”]+$/g, "").trim();
}

/** Whether a predicted value counts as the labelled one for `key`. */
export function sameValue(key: string, gold: string, predicted: string): boolean {
  if (key === "phone" || key === "whatsapp") {
    const a = gold.replace(/\D/g, "");
    const b = predicted.replace(/\D/g, "");
    return a.length > 0 && a === b;
  }
  if (key === "languages") {
    const set = (v: string) => new Set(v.split(/\s*,\s*/).map(norm));
    const a = set(gold);
    const b = set(predicted);
    return a.size === b.size && [...a].every((x) => b.has(x));
  }
  if (key === "timezone") return norm(gold).replace(/\s/g, "") === norm(predicted).replace(/\s/g, "");
  const a = norm(gold);
  const b = norm(predicted);
  if (a === b) return true;
  if (!FREE_TEXT.has(key)) return false;
  const words = (v: string) => ` ${v} `;
  return words(a).includes(words(b)) || words(b).includes(words(a));
}

/** Matches one message's prediction with its labels. */
export function compare(message: LabelledMessage, predicted: Prediction): CaseResult {
  const remaining = predicted.facts.map((f) => [familyOf(f.key), f.value] as [string, string]);
  const missed: [string, string][] = [];
  for (const [key, value] of message.facts) {
    const at = remaining.findIndex(([k, v]) => k === key && sameValue(key, value, v));
    if (at >= 0) remaining.splice(at, 1);
    else missed.push([key, value]);
  }
  return { message, predicted, missed, extra: remaining };
}

function scores(counts: Counts): Scores {
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const precision = counts.tp + counts.fp === 0 ? 1 : counts.tp / (counts.tp + counts.fp);
  const recall = counts.tp + counts.fn === 0 ? 1 : counts.tp / (counts.tp + counts.fn);
  return { ...counts, precision: round(precision), recall: round(recall) };
}

function add(table: Map<string, Counts>, key: string, field: keyof Counts): void {
  const counts = table.get(key) ?? { tp: 0, fp: 0, fn: 0 };
  counts[field] += 1;
  table.set(key, counts);
}

/** Totals over many cases: overall, per language, per key, and the event-type match share. */
export function summarise(results: readonly CaseResult[]) {
  const overall: Counts = { tp: 0, fp: 0, fn: 0 };
  const byLanguage = new Map<string, Counts>();
  const byKey = new Map<string, Counts>();
  let typeMatches = 0;
  for (const result of results) {
    const { lang } = result.message;
    const found = result.message.facts.length - result.missed.length;
    for (let i = 0; i < found; i += 1) overall.tp += 1;
    overall.fn += result.missed.length;
    overall.fp += result.extra.length;
    const hits = [...result.message.facts];
    for (const miss of result.missed) hits.splice(hits.findIndex((f) => f[0] === miss[0] && f[1] === miss[1]), 1);
    for (const [key] of hits) {
      add(byKey, key, "tp");
      add(byLanguage, lang, "tp");
    }
    for (const [key] of result.missed) {
      add(byKey, key, "fn");
      add(byLanguage, lang, "fn");
    }
    for (const [key] of result.extra) {
      add(byKey, key, "fp");
      add(byLanguage, lang, "fp");
    }
    if (result.predicted.type === result.message.type) typeMatches += 1;
  }
  const table = (m: Map<string, Counts>) => Object.fromEntries([...m.entries()].sort().map(([k, c]) => [k, scores(c)]));
  return {
    messages: results.length,
    overall: scores(overall),
    byLanguage: table(byLanguage),
    byKey: table(byKey),
    eventTypeMatch: Math.round((typeMatches / Math.max(1, results.length)) * 1000) / 1000,
  };
}
