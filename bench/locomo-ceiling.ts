/**
 * How far a lexical ranking can go on LoCoMo's multi-hop questions (category 1):
 * `npx tsx bench/locomo-ceiling.ts --data <locomo.json> [--ranks] [--json <out>]`. Prints JSON.
 *
 * Each evidence turn of a multi-hop question is put in the first class that reaches it:
 * (a) `shared`: its indexed text (speaker, words, caption, date words; `tokenize`, the ranking's
 *     own stemming and stop words) holds a term of the question other than the speakers' names;
 * (b) `kinds`: it holds one of the WordNet kinds the ranking adds to the question
 *     (`categoryTermsOf`, for a list or "Where …?" question, held by at most 5% of the turns as
 *     the ranking keeps them);
 * (c) `neighbour`: it is next to an (a) or (b) turn of its session (the ranking's neighbour context);
 * (d) `none`.
 * The oracle ranking puts every reachable evidence turn first: recall@10 of a question is
 * min(10, reachable) / evidence. `--ranks` also fills a memory per conversation through
 * `importSessions` (as bench:locomo does, SQLite) and counts where today's ranking puts each class.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { MemorySaver } from "@langchain/langgraph";
import { createMemoryGraph } from "../src/index.js";
import { tokenize } from "../src/memory/ranking/tokenize.js";
import { dateWords } from "../src/memory/ranking/document-text.js";
import { categoryTermsOf, PLACE_CATEGORY } from "../src/memory/ranking/category-kinds.js";
import { asksForList, asksWhere } from "../src/memory/query-subject.js";
import { benchStores } from "./lib/bench-store.js";
import { loadLocomo, locomoSessions, type LocomoConversation, type LocomoQuestion } from "./lib/locomo-data.js";
import { mean, round } from "./lib/metrics.js";

const CLASSES = ["shared", "kinds", "neighbour", "none"] as const;
type Reach = (typeof CLASSES)[number];
/** The ranking's `feedbackMaxShare`: kinds held by more of the turns are not added. */
const MAX_SHARE = 0.05;
const BUCKETS = [10, 25, 50] as const;

interface Classified {
  question: string;
  evidence: string[];
  reach: Map<string, Reach>;
  /** Turns of the conversation in class (a) or (b), evidence or not: what the oracle picks from. */
  pool: number;
  /** Evidence turns of class (a) whose shared terms are all held by more than 5% of the turns. */
  commonOnly: number;
}

/** Each multi-hop question of `conv` with the class of each of its evidence turns. */
function classify(conv: LocomoConversation): Classified[] {
  const names = new Set(conv.speakers.flatMap((name) => tokenize(name)));
  const termsOf = new Map(conv.turns.map((t) => [t.id, new Set(tokenize(`${t.speaker}: ${t.text}\n${dateWords(t.createdAt)}`))]));
  const df = new Map<string, number>();
  for (const terms of termsOf.values()) for (const term of terms) df.set(term, (df.get(term) ?? 0) + 1);
  const rare = (term: string) => (df.get(term) ?? 0) / conv.turns.length <= MAX_SHARE;
  const neighbours = new Map<string, string[]>();
  conv.turns.forEach((turn, i) => {
    const near = [conv.turns[i - 1], conv.turns[i + 1]].filter((t) => t !== undefined && t.session === turn.session);
    neighbours.set(turn.id, near.map((t) => t!.id));
  });
  return conv.questions.filter((qa) => qa.category === 1 && qa.evidence.length > 0).map((qa) => {
    const own = tokenize(qa.question);
    const content = new Set(own.filter((term) => !names.has(term)));
    const expands = asksForList(qa.question) || asksWhere(qa.question);
    const kinds = new Set(expands ? categoryTermsOf(own, asksWhere(qa.question) ? [PLACE_CATEGORY] : []).filter(rare) : []);
    const holds = (id: string, wanted: Set<string>) => [...(termsOf.get(id) ?? [])].some((term) => wanted.has(term));
    const direct = (id: string): Reach | undefined => (holds(id, content) ? "shared" : holds(id, kinds) ? "kinds" : undefined);
    const reach = new Map<string, Reach>();
    for (const id of qa.evidence) {
      const near = (neighbours.get(id) ?? []).some((other) => direct(other) !== undefined);
      reach.set(id, direct(id) ?? (near ? "neighbour" : "none"));
    }
    const pool = conv.turns.filter((t) => direct(t.id) !== undefined).length;
    const commonOnly = qa.evidence.filter((id) => reach.get(id) === "shared" && !holds(id, new Set([...content].filter(rare)))).length;
    return { question: qa.question, evidence: qa.evidence, reach, pool, commonOnly };
  });
}

/** Mean oracle recall@10 (percent) when the evidence of `classes` is ranked first. */
function ceiling(questions: readonly Classified[], classes: readonly Reach[]): number {
  const allowed = new Set(classes);
  return round(100 * mean(questions.map((q) => Math.min(10, [...q.reach.values()].filter((c) => allowed.has(c)).length) / q.evidence.length)));
}

/** Per multi-hop question id, the ids today's ranking returns (top 50), SQLite, default configuration. */
async function rankedIds(conv: LocomoConversation, questions: readonly LocomoQuestion[]): Promise<string[][]> {
  const stores = benchStores("sqlite", undefined);
  const opened = await stores.open(conv.sampleId, {});
  const memory = await createMemoryGraph({ persistence: { store: opened.store, checkpointer: new MemorySaver() }, embeddings: null, chatModel: null, logger: false });
  const user = { tenantId: "bench", userId: conv.sampleId };
  try {
    await memory.importSessions(user, locomoSessions(conv));
    const out: string[][] = [];
    for (const qa of questions) out.push((await memory.search({ ...user, query: qa.question, limit: 50 })).hits.map((hit) => hit.id));
    return out;
  } finally {
    await memory.close();
    await opened.close();
    stores.dispose();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

type Table = Record<Reach, Record<string, number>>;

function emptyTable(): Table {
  const row = () => ({ "1-10": 0, "11-25": 0, "26-50": 0, "not in top 50": 0 });
  return { shared: row(), kinds: row(), neighbour: row(), none: row() };
}

function bucketOf(rank: number): string {
  if (rank < 0) return "not in top 50";
  const at = BUCKETS.findIndex((k) => rank < k);
  return ["1-10", "11-25", "26-50"][at] ?? "not in top 50";
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { data: { type: "string" }, json: { type: "string" }, ranks: { type: "boolean", default: false } } });
  if (!values.data) {
    process.stderr.write("usage: npx tsx bench/locomo-ceiling.ts --data <locomo.json> [--ranks] [--json <out>]\n");
    process.exit(2);
  }
  const all: Classified[] = [];
  const ranks = emptyTable();
  const today: number[] = [];
  for (const conv of loadLocomo(values.data)) {
    const questions = classify(conv);
    all.push(...questions);
    if (!values.ranks) continue;
    const ranked = await rankedIds(conv, questions.map((q) => ({ question: q.question, category: 1, evidence: q.evidence })));
    questions.forEach((q, i) => {
      const ids = ranked[i] ?? [];
      for (const [id, reach] of q.reach) ranks[reach][bucketOf(ids.indexOf(id))]! += 1;
      today.push(q.evidence.filter((id) => ids.slice(0, 10).includes(id)).length / q.evidence.length);
    });
  }
  const turns = Object.fromEntries(CLASSES.map((c) => [c, all.reduce((s, q) => s + [...q.reach.values()].filter((r) => r === c).length, 0)]));
  const report = {
    data: values.data,
    questions: all.length,
    evidence_turns: all.reduce((s, q) => s + q.evidence.length, 0),
    turns_by_class: turns,
    shared_by_common_terms_only: all.reduce((s, q) => s + q.commonOnly, 0),
    candidate_turns_per_question: { median: median(all.map((q) => q.pool)), mean: round(mean(all.map((q) => q.pool))) },
    oracle_recall_at_10: {
      shared: ceiling(all, ["shared"]),
      "shared+kinds": ceiling(all, ["shared", "kinds"]),
      "shared+kinds+neighbour": ceiling(all, ["shared", "kinds", "neighbour"]),
      every_turn: ceiling(all, CLASSES),
    },
    ...(values.ranks ? { today_recall_at_10: round(100 * mean(today)), today_ranks_by_class: ranks } : {}),
  };
  const text = JSON.stringify(report, null, 2);
  process.stdout.write(`${text}\n`);
  if (values.json) writeFileSync(values.json, `${text}\n`);
}

await main();
