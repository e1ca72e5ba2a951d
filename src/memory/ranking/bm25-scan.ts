import type { DocTable } from "./doc-table.js";
import { kthLargest, type PackedPostings } from "./postings.js";

/** Posting lists at least this long are worth a check of whether they can be skipped. */
const PRUNE_MIN_POSTINGS = 256;

/** What scoring reads of a `RecallIndex`. */
export interface ScanView {
  docs: DocTable;
  postings: PackedPostings;
  /** Per slot its id (null: made from its order when asked), undefined once dead. */
  slotIds: readonly (string | null | undefined)[];
  live: number;
  totalLength: number;
  minLength: number;
  k1: number;
  b: number;
  idf: (n: number, df: number) => number;
}

/** One query term's posting list as a query reads it: its packed run, then the matching documents not packed yet. */
interface TermList {
  term: number;
  weight: number;
  bound: number;
  from: number;
  to: number;
  /** [slot, tf, …] of documents added since the last pack, ascending. */
  extra: number[];
}

/** Scratch of scoring, shared by every index of the process (scoring is synchronous). */
const scratch = { scores: new Float64Array(64), touched: new Int32Array(64), values: new Float64Array(64), listOf: new Int32Array(64).fill(-1) };

function ensureScratch(slots: number, terms: number): void {
  if (slots > scratch.scores.length) {
    const size = Math.max(slots, scratch.scores.length * 2);
    scratch.scores = new Float64Array(size);
    scratch.touched = new Int32Array(size);
    scratch.values = new Float64Array(size);
  }
  if (terms > scratch.listOf.length) scratch.listOf = new Int32Array(Math.max(terms, scratch.listOf.length * 2)).fill(-1);
}

/**
 * The best `limit` BM25 scores (by slot) of the documents holding any of `termIds` (distinct, each
 * below `termCount`), exactly: lists are read from the highest possible contribution down, and once
 * the `limit`-th best score found beats all that the remaining lists could give a new document, they
 * only add to documents already found (max-score pruning). Ties at the cut keep the order found.
 */
export function scanBest(view: ScanView, termIds: readonly number[], termCount: number, limit: number): { slot: number; score: number }[] {
  ensureScratch(view.docs.count, termCount);
  const base = view.k1 * (1 - view.b);
  const perLength = (view.k1 * view.b) / (view.totalLength / view.live || 1);
  const weighing: Weighing = { base, perLength, lengths: view.docs.lengths };
  const lists = listsOf(view, termIds, base + perLength * view.minLength);
  let remaining = lists.reduce((sum, list) => sum + list.bound, 0);
  let count = 0;
  let pruning = false;
  for (const list of lists) {
    const length = list.to - list.from + list.extra.length / 2;
    if (!pruning && count >= limit && length >= PRUNE_MIN_POSTINGS) {
      // A document not yet found can score at most `remaining`; the limit-th best already beats that.
      pruning = kthScore(count, limit) > remaining;
    }
    remaining -= list.bound;
    if (!pruning) count = addAll(view, list, count, weighing);
    else addToFound(view.postings, list, count, length, weighing);
  }
  return best(count, limit);
}

/** The query's posting lists (terms held by a live document), highest possible contribution first. */
function listsOf(view: ScanView, termIds: readonly number[], shortest: number): TermList[] {
  const lists: TermList[] = [];
  // A restored index's runs are read from their bytes when a query first needs them.
  view.postings.fill(termIds);
  const { df, maxTf } = view.postings;
  for (const term of termIds) {
    if (!((df[term] ?? 0) > 0)) continue;
    const weight = view.idf(view.live, df[term] as number) * (view.k1 + 1);
    const run = view.postings.runOf(term);
    lists.push({ term, weight, bound: (weight * (maxTf[term] as number)) / ((maxTf[term] as number) + shortest), from: run[0], to: run[1], extra: [] });
  }
  lists.sort((x, y) => y.bound - x.bound);
  const { docs, postings, slotIds } = view;
  if (postings.packedSlots === docs.count) return lists;
  lists.forEach((list, i) => (scratch.listOf[list.term] = i));
  const { pool, starts } = docs;
  for (let slot = postings.packedSlots; slot < docs.count; slot++) {
    if (slotIds[slot] === undefined) continue;
    for (let i = starts[slot] as number; i < (starts[slot + 1] as number); i += 2) {
      const at = scratch.listOf[pool[i] as number] as number;
      if (at >= 0) (lists[at] as TermList).extra.push(slot, pool[i + 1] as number);
    }
  }
  for (const list of lists) scratch.listOf[list.term] = -1;
  return lists;
}

/** How a query weighs a term's frequency in a document of a given length (BM25's saturation and length normalisation). */
interface Weighing {
  base: number;
  perLength: number;
  lengths: Int32Array;
}

/** Adds `list` to every live document in it; returns the count of documents found so far. Hot: plain loops over locals. */
function addAll(view: ScanView, list: TermList, count: number, { base, perLength, lengths }: Weighing): number {
  const { scores, touched } = scratch;
  const { slots, tfs } = view.postings;
  const { slotIds } = view;
  const anyDead = slotIds.length !== view.live;
  const { weight, extra, to } = list;
  for (let i = list.from; i < to; i++) {
    const slot = slots[i] as number;
    if (anyDead && slotIds[slot] === undefined) continue;
    const tf = tfs[i] as number;
    const before = scores[slot] as number;
    if (before === 0) touched[count++] = slot;
    scores[slot] = before + (weight * tf) / (tf + base + perLength * (lengths[slot] as number));
  }
  for (let i = 0; i < extra.length; i += 2) {
    const slot = extra[i] as number;
    if (anyDead && slotIds[slot] === undefined) continue;
    const tf = extra[i + 1] as number;
    const before = scores[slot] as number;
    if (before === 0) touched[count++] = slot;
    scores[slot] = before + (weight * tf) / (tf + base + perLength * (lengths[slot] as number));
  }
  return count;
}

/** Adds `list` only to the `count` documents already found: by binary search when they are few beside the list, else by a scan. */
function addToFound(postings: PackedPostings, list: TermList, count: number, length: number, { base, perLength, lengths }: Weighing): void {
  const { scores, touched } = scratch;
  const { slots, tfs } = postings;
  const { weight, extra, to } = list;
  const add = (slot: number, tf: number): void => {
    scores[slot] = (scores[slot] as number) + (weight * tf) / (tf + base + perLength * (lengths[slot] as number));
  };
  if (count * Math.log2(length + 1) < length) {
    for (let j = 0; j < count; j++) {
      const slot = touched[j] as number;
      if (slot < postings.packedSlots) {
        const i = postings.find(list.term, slot);
        if (i >= 0) add(slot, tfs[i] as number);
      } else {
        const e = findPair(extra, slot);
        if (e >= 0) add(slot, extra[e + 1] as number);
      }
    }
    return;
  }
  for (let i = list.from; i < to; i++) {
    const slot = slots[i] as number;
    if ((scores[slot] as number) !== 0) add(slot, tfs[i] as number);
  }
  for (let e = 0; e < extra.length; e += 2) if ((scores[extra[e] as number] as number) !== 0) add(extra[e] as number, extra[e + 1] as number);
}

/** The best `limit` of the `count` documents found, strictly better first, then ties at the cut; clears the scratch. */
function best(count: number, limit: number): { slot: number; score: number }[] {
  const { scores, touched } = scratch;
  const out: { slot: number; score: number }[] = [];
  const threshold = count > limit ? kthScore(count, limit) : -Infinity;
  // Strictly better first, then ties at the threshold, so a tie never crowds out a better score.
  for (let j = 0; j < count; j++) {
    const slot = touched[j] as number;
    if ((scores[slot] as number) > threshold) out.push({ slot, score: scores[slot] as number });
  }
  for (let j = 0; j < count && out.length < limit; j++) {
    const slot = touched[j] as number;
    if (scores[slot] === threshold) out.push({ slot, score: threshold });
  }
  for (let j = 0; j < count; j++) scores[touched[j] as number] = 0;
  return out;
}

/** The `k`-th best of the first `count` touched scores. */
function kthScore(count: number, k: number): number {
  const { values, scores, touched } = scratch;
  for (let j = 0; j < count; j++) values[j] = scores[touched[j] as number] as number;
  return kthLargest(values, count, k);
}

/** The position of `slot` in `pairs` ([slot, value, …], slots ascending), or −1. */
function findPair(pairs: readonly number[], slot: number): number {
  let lo = 0;
  let hi = pairs.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = pairs[2 * mid] as number;
    if (at === slot) return 2 * mid;
    if (at < slot) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
