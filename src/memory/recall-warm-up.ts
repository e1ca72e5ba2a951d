import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { normalizeScores } from "./ranking/fusion.js";
import { rankHybrid } from "./ranking/hybrid.js";
import { hybridOptionsOf, indexSource } from "./ranking/index-source.js";
import { RecallIndex } from "./ranking/recall-index.js";
import { tokenize } from "./ranking/tokenize.js";
import { readQuery } from "./similar.js";
import { namespaces } from "./namespaces.js";
import { warmSearch } from "./store-io.js";
import { runWarmUp, type WarmUpOptions } from "./warm-up-steps.js";

/** Documents of the made-up conversation: enough that its snapshot's pairs and lists are left as bytes on a restore, as a long-standing user's are. */
const DOCUMENTS = 600;
const PER_BUILD_STEP = 100;
/** Restores, each with a few documents written since and one ranking (more took the first user's recall no lower). */
const RESTORES = 8;
const WORDS = [
  "garden", "trip", "meeting", "sister", "recipe", "bike", "concert", "doctor", "painting", "book", "camping", "guitar", "job", "apartment",
  "birthday", "coffee", "hiking", "train", "museum", "class", "yoga", "dog", "cat", "movie", "friend", "kitchen", "beach", "project",
  "weekend", "morning", "yesterday", "bought", "visited", "started", "finished", "planned", "loved", "tried", "moved", "learned", "played",
  // Words that take every rule of the stemmer (its suffix steps and their conditions), so none of
  // them is first compiled in a user's recall.
  "relational", "conditional", "valency", "hesitancy", "digitizer", "agreeably", "radically", "differently", "analogously", "organization",
  "predication", "operator", "feudalism", "decisiveness", "hopefulness", "callousness", "formality", "sensitivity", "sensibility",
  "triplicate", "formative", "formalize", "electricity", "electrical", "goodness", "revival", "allowance", "inference", "airliner",
  "gyroscopic", "adjustable", "defensible", "irritant", "replacement", "adjustment", "dependent", "adoption", "communism", "activate",
  "homologous", "effective", "bowdlerize", "probate", "controlling", "quickly", "happily", "caresses", "ponies", "agreed", "hopping",
];
const QUERIES = [
  "What did I say about the garden last week?",
  "What activities has Pat tried with the dog?",
  "How many trips did we plan in total?",
  "When did Pat start the guitar class?",
];

/** A made-up word of `seed` (a few thousand distinct ones, the rarer the larger the seed). */
function madeUpWord(seed: number): string {
  const syllables = ["ka", "lo", "mi", "ren", "tu", "sa", "vo", "ix", "pe", "dra"];
  let word = "";
  for (let n = seed + 11; n > 0; n = Math.floor(n / 10)) word += syllables[n % 10];
  return word;
}

/** Document `i` of the made-up conversation: its terms and traits (deterministic). */
function documentOf(i: number): { terms: string[]; group: string; speaker: string; asks: boolean } {
  const words: string[] = [];
  let state = Math.imul(i + 1, 2654435761) >>> 0;
  for (let n = 12 + (i % 7) * 8; n > 0; n--) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    words.push(state % 10 === 0 ? (WORDS[state % WORDS.length] as string) : madeUpWord(state % (1 + (state % 4000))));
  }
  const speaker = i % 2 === 0 ? "Pat" : "Assistant";
  return { terms: tokenize(words.join(" ")), group: `s${Math.floor(i / 20)}`, speaker, asks: i % 5 === 0 };
}

function addDocument(index: RecallIndex, i: number): void {
  const { terms, group, speaker, asks } = documentOf(i);
  index.add(String(i), terms, group, i, { label: speaker === "Pat" ? "user" : "assistant", speaker, asks });
}

/** Ranks `query` on `index` as a store's search does, with the query read as `searchSimilar` reads it (`readQuery`). */
function rank(index: RecallIndex, query: string): number {
  const options = hybridOptionsOf(undefined, { ...readQuery(query).read, withNeighbours: true });
  return normalizeScores(rankHybrid(tokenize(query), indexSource(index), undefined, { ...options, limit: 8 })).length;
}

/** The made-up conversation's index, whole (what the warm-up's first steps build in parts). */
export function madeUpIndex(): RecallIndex {
  const index = new RecallIndex();
  for (let i = 0; i < DOCUMENTS; i++) addDocument(index, i);
  return index;
}

/**
 * `index`'s snapshot as the stores hand it to a restore: SQLite as a Buffer of its own, Postgres in
 * the pieces its COPY came in (here of `COPY_PIECE_BYTES`). Restored from a plain Uint8Array, V8
 * optimised the decoding for that and deoptimised on a user's first real snapshot (the first
 * recalls of a warmed process, p95 15.5 → 12.3 ms with this and the stemmer's words, 357 first
 * searches each); restored whole only, it deoptimised the decoding on the first read across two
 * pieces ("out of bounds"), 10–25 ms more for the restore of a user of 100,000 messages.
 */
export function snapshotAsStored(index: RecallIndex): { whole: Buffer; pieces: Buffer[] } {
  const whole = Buffer.from(index.toSnapshot());
  const pieces: Buffer[] = [];
  for (let at = 0; at < whole.length; at += COPY_PIECE_BYTES) pieces.push(Buffer.from(whole.subarray(at, at + COPY_PIECE_BYTES)));
  return { whole, pieces };
}

/** The pieces of a made-up snapshot: smaller than a socket's reads (64 KiB), so each part of it (stream, pairs, lists) is read across pieces. */
const COPY_PIECE_BYTES = 8 * 1024;

/** A restore of `bytes` (whole or in pieces) with the documents written since (8) applied, and query `n`'s ranking on it: how many hits it gave. */
export function restoreAndRank(bytes: Uint8Array | readonly Uint8Array[], n: number): number {
  const index = RecallIndex.fromSnapshot(bytes);
  for (let i = 0; i < 8; i++) addDocument(index, DOCUMENTS + i);
  return rank(index, QUERIES[n % QUERIES.length] as string);
}

/** The warm-up's steps: the made-up conversation built (a few steps), its snapshot taken, then `RESTORES` restores and rankings (`restoreAndRank`), from pieces and whole in turn. */
export function* recallSteps(): Generator<() => void> {
  const built = new RecallIndex();
  for (let from = 0; from < DOCUMENTS; from += PER_BUILD_STEP) {
    yield () => {
      for (let i = from; i < from + PER_BUILD_STEP; i++) addDocument(built, i);
    };
  }
  let stored: ReturnType<typeof snapshotAsStored> | undefined;
  yield () => {
    stored = snapshotAsStored(built);
  };
  // As both engines hand it over, in turn.
  for (let n = 0; n < RESTORES; n++) yield () => void restoreAndRank(n % 2 === 0 ? (stored?.pieces ?? []) : (stored?.whole ?? []), n);
}

/**
 * Runs a fresh process's first restores and rankings on a made-up conversation, one step at a time
 * while `idle()` (`runWarmUp`), so that V8 has compiled them before the first users' recalls. In a
 * new process on Postgres the first user's first recall took 47–61 ms against a p50 of 7–10 ms,
 * and 30–43 ms after this warm-up (`bench/recall-fresh.ts`, `fresh_process` and
 * `fresh_process_warmed`; the next users alike within the machine's noise). 140–250 ms of CPU in
 * all, most of it building the conversation (steps of a few to 40 ms); reads and writes nothing
 * but memory, and keeps nothing once done. Resolves with the ms of CPU taken.
 */
export function warmRecall(idle: () => boolean, options: WarmUpOptions = {}): Promise<number> {
  return runWarmUp(recallSteps(), idle, options);
}

/** The user whose index `warmStoreReads` reads: ids no request can give (`validateId` refuses leading white space), so nothing is stored under them. */
export const WARM_UP_USER = Object.freeze({ tenantId: " warm-up", userId: " warm-up" });

/**
 * Has `store` read a user's recall index once, as a user's first recall on a fresh instance does,
 * for `WARM_UP_USER`, who has nothing stored: on Postgres the statement reading the snapshot and
 * the change feed (a COPY, pg-copy-streams loaded), then the query that builds an index from its
 * rows (none); nothing is written, and the cache keeps an empty index. With `warmRecall` before
 * it, a new process's first user's first recall on Postgres took 15–23 ms instead of 32–39 (3 runs
 * each, 119 LongMemEval users, a scratch copy of `bench/lib/fresh-recall-child.ts`), and the p95
 * over the 119 users fell with it. One step, run while `idle()` (`runWarmUp`); resolves with its
 * ms, waiting for the database included.
 */
export function warmStoreReads(store: BaseStore, idle: () => boolean, options: WarmUpOptions = {}): Promise<number> {
  return runWarmUp([() => warmSearch(store, namespaces.sessions(WARM_UP_USER))], idle, options);
}
