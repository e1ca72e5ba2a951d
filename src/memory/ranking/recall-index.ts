import { bm25Parameters, type Bm25Options } from "./bm25.js";
import { Postings, kthLargest } from "./postings.js";
import type { DocTraits } from "./document-text.js";
import { GroupedIds } from "./ordered-ids.js";
import { termFrequencies } from "./tokenize.js";

interface Place {
  slot: number;
  group: string;
  order: number;
  traits: DocTraits | undefined;
}

const PRUNE_MIN_POSTINGS = 256; // posting lists at least this long are worth a check of whether they can be skipped

/**
 * An in-process lexical index for hybrid ranking: BM25 over pre-tokenized terms, each document's
 * neighbours (the documents just before and after it in its group, a conversation's namespace, by
 * their numeric `order`) and its traits. Adding an id again replaces its terms and keeps its place.
 * Documents are dense integer slots, terms integer ids, posting lists typed arrays; a query adds
 * into one reused Float64Array. Scoring returns exactly the best `limit` matches: terms are read
 * from the highest possible contribution down, and once the `limit`-th best score beats all the
 * remaining terms could give, they only add to documents already found (max-score pruning).
 * Removal marks a slot dead; dead slots are compacted away once they are a quarter of all.
 */
export class RecallIndex {
  private readonly k1: number;
  private readonly b: number;
  private readonly idf: (n: number, df: number) => number;
  private readonly termIds = new Map<string, number>();
  private readonly termNames: string[] = [];
  private readonly postings: Postings[] = [];
  private readonly places = new Map<string, Place>();
  private readonly groups = new GroupedIds();
  /** Per slot: its id (undefined once dead), length, and its distinct terms as [termId, tf] pairs. */
  private slotIds: (string | undefined)[] = [];
  private slotTerms: (Int32Array | undefined)[] = [];
  private lengths = new Float64Array(64);
  private scores = new Float64Array(64);
  private touched = new Int32Array(64);
  private scratch = new Float64Array(64);
  private live = 0;
  private totalLength = 0;
  private minLength = Infinity;

  constructor(options: Bm25Options = {}) {
    ({ k1: this.k1, b: this.b, idf: this.idf } = bm25Parameters(options));
  }

  get size(): number {
    return this.live;
  }

  has = (id: string): boolean => this.places.has(id);

  /** Indexes `terms` as `id` in `group` at position `order` (ids of one group ordered by it), with its `traits`. */
  add(id: string, terms: readonly string[], group: string, order: number, traits?: DocTraits): void {
    const place = this.places.get(id);
    if (place) this.release(place.slot);
    const slot = this.slotIds.length;
    this.ensureCapacity(slot + 1);
    const counts = termFrequencies(terms);
    const pairs = new Int32Array(counts.size * 2);
    let i = 0;
    for (const [term, tf] of counts) {
      let termId = this.termIds.get(term);
      if (termId === undefined) {
        termId = this.termNames.length;
        this.termIds.set(term, termId);
        this.termNames.push(term);
        this.postings.push(new Postings());
      }
      (this.postings[termId] as Postings).push(slot, tf);
      pairs[i++] = termId;
      pairs[i++] = tf;
    }
    this.slotIds.push(id);
    this.slotTerms.push(pairs);
    this.lengths[slot] = terms.length;
    this.live += 1;
    this.totalLength += terms.length;
    if (terms.length < this.minLength) this.minLength = terms.length;
    if (place && place.group === group) {
      place.slot = slot;
      place.traits = traits;
      this.compactIfSparse();
      return;
    }
    if (place) this.groups.delete(id, place.group, place.order);
    this.places.set(id, { slot, group, order, traits });
    this.groups.insert(id, group, order);
    if (place) this.compactIfSparse();
  }

  remove(id: string): void {
    const place = this.places.get(id);
    if (!place) return;
    this.release(place.slot);
    this.places.delete(id);
    this.groups.delete(id, place.group, place.order);
    this.compactIfSparse();
  }

  /** The `n` ids with the highest `order` (the newest written), newest first. */
  newest(n: number): string[] {
    return this.groups.newest(n);
  }

  /** How many documents hold `term`. */
  documentFrequency(term: string): number {
    const termId = this.termIds.get(term);
    return termId === undefined ? 0 : (this.postings[termId]?.df ?? 0);
  }

  /** The share (0..1) of documents holding `term`. */
  documentShare(term: string): number {
    return this.live === 0 ? 0 : this.documentFrequency(term) / this.live;
  }

  /** The best `limit` BM25 scores for `terms` (each distinct term once); all matches when fewer. */
  score(terms: readonly string[], limit: number): Map<string, number> {
    const out = new Map<string, number>();
    if (this.live === 0 || limit < 1) return out;
    const { k1, b } = this;
    const base = k1 * (1 - b);
    const perLength = (k1 * b) / (this.totalLength / this.live || 1);
    const lists: { postings: Postings; weight: number; bound: number }[] = [];
    for (const term of new Set(terms)) {
      const termId = this.termIds.get(term);
      const postings = termId === undefined ? undefined : this.postings[termId];
      if (!postings || postings.df === 0) continue;
      const weight = this.idf(this.live, postings.df) * (k1 + 1);
      const bound = (weight * postings.maxTf) / (postings.maxTf + base + perLength * this.minLength);
      lists.push({ postings, weight, bound });
    }
    lists.sort((x, y) => y.bound - x.bound);
    let remaining = lists.reduce((sum, list) => sum + list.bound, 0);
    const { scores, touched, lengths, slotIds } = this;
    const anyDead = slotIds.length !== this.live;
    let count = 0;
    let pruning = false;
    for (const { postings, weight, bound } of lists) {
      if (!pruning && count >= limit && postings.length >= PRUNE_MIN_POSTINGS) {
        // A document not yet found can score at most `remaining`; the limit-th best already beats that.
        pruning = this.kthScore(count, limit) > remaining;
      }
      remaining -= bound;
      const { slots, tfs, length } = postings;
      if (!pruning) {
        for (let i = 0; i < length; i++) {
          const slot = slots[i] as number;
          if (anyDead && slotIds[slot] === undefined) continue;
          const tf = tfs[i] as number;
          const before = scores[slot] as number;
          if (before === 0) touched[count++] = slot;
          scores[slot] = before + (weight * tf) / (tf + base + perLength * (lengths[slot] as number));
        }
      } else if (count * Math.log2(length + 1) < length) {
        for (let j = 0; j < count; j++) {
          const slot = touched[j] as number;
          const i = postings.find(slot);
          if (i < 0) continue;
          const tf = tfs[i] as number;
          scores[slot] = (scores[slot] as number) + (weight * tf) / (tf + base + perLength * (lengths[slot] as number));
        }
      } else {
        for (let i = 0; i < length; i++) {
          const slot = slots[i] as number;
          const before = scores[slot] as number;
          if (before === 0) continue;
          const tf = tfs[i] as number;
          scores[slot] = before + (weight * tf) / (tf + base + perLength * (lengths[slot] as number));
        }
      }
    }
    const threshold = count > limit ? this.kthScore(count, limit) : -Infinity;
    // Strictly better first, then ties at the threshold, so a tie never crowds out a better score.
    for (let j = 0; j < count; j++) {
      const slot = touched[j] as number;
      const score = scores[slot] as number;
      if (score > threshold) out.set(slotIds[slot] as string, score);
    }
    for (let j = 0; j < count && out.size < limit; j++) {
      const slot = touched[j] as number;
      const score = scores[slot] as number;
      if (score === threshold) out.set(slotIds[slot] as string, score);
    }
    for (let j = 0; j < count; j++) scores[touched[j] as number] = 0;
    return out;
  }

  termsOf(ids: readonly string[]): Map<string, readonly string[]> {
    const out = new Map<string, readonly string[]>();
    for (const id of ids) {
      const place = this.places.get(id);
      const pairs = place ? this.slotTerms[place.slot] : undefined;
      if (!pairs) continue;
      const terms: string[] = [];
      for (let i = 0; i < pairs.length; i += 2) {
        const term = this.termNames[pairs[i] as number] as string;
        for (let n = pairs[i + 1] as number; n > 0; n--) terms.push(term);
      }
      out.set(id, terms);
    }
    return out;
  }

  neighboursOf(ids: readonly string[]): Map<string, readonly string[]> {
    const out = new Map<string, readonly string[]>();
    for (const id of ids) {
      const place = this.places.get(id);
      if (place) out.set(id, this.groups.around(id, place.group, place.order));
    }
    return out;
  }

  /** The label of each id that has one (absent and unlabelled ids are left out). */
  labelsOf(ids: Iterable<string>): Map<string, string> {
    const out = new Map<string, string>();
    for (const id of ids) {
      const label = this.places.get(id)?.traits?.label;
      if (label !== undefined) out.set(id, label);
    }
    return out;
  }

  /** The speaker of each id that names one (absent ids and ids without a speaker are left out). */
  speakersOf(ids: Iterable<string>): Map<string, string> {
    const out = new Map<string, string>();
    for (const id of ids) {
      const speaker = this.places.get(id)?.traits?.speaker;
      if (speaker !== undefined) out.set(id, speaker);
    }
    return out;
  }

  /** For each id that asks a question, the id after it in its group (absent when it is the last). */
  answersOf(ids: Iterable<string>): Map<string, string> {
    const out = new Map<string, string>();
    for (const id of ids) {
      const place = this.places.get(id);
      const next = place?.traits?.asks ? this.groups.next(id, place.group, place.order) : undefined;
      if (next !== undefined) out.set(id, next);
    }
    return out;
  }

  /** The number of indexed terms of each id (absent ids are left out). */
  lengthsOf(ids: readonly string[]): Map<string, number> {
    const out = new Map<string, number>();
    for (const id of ids) {
      const slot = this.places.get(id)?.slot;
      if (slot !== undefined) out.set(id, this.lengths[slot] as number);
    }
    return out;
  }

  /** The `k`-th best of the first `count` touched scores. */
  private kthScore(count: number, k: number): number {
    const { scratch, scores, touched } = this;
    for (let j = 0; j < count; j++) scratch[j] = scores[touched[j] as number] as number;
    return kthLargest(scratch, count, k);
  }

  /** Marks `slot` dead: its terms leave the statistics; its posting entries wait for compaction. */
  private release(slot: number): void {
    const pairs = this.slotTerms[slot];
    if (pairs) {
      for (let i = 0; i < pairs.length; i += 2) (this.postings[pairs[i] as number] as Postings).df -= 1;
    }
    this.slotIds[slot] = undefined;
    this.slotTerms[slot] = undefined;
    this.live -= 1;
    this.totalLength -= this.lengths[slot] as number;
  }

  private compactIfSparse(): void {
    const dead = this.slotIds.length - this.live;
    if (dead < 64 || dead * 4 < this.slotIds.length) return;
    const renumber = new Int32Array(this.slotIds.length).fill(-1);
    const ids: (string | undefined)[] = [];
    const terms: (Int32Array | undefined)[] = [];
    const lengths = new Float64Array(this.lengths.length);
    this.slotIds.forEach((id, slot) => {
      if (id === undefined) return;
      renumber[slot] = ids.length;
      lengths[ids.length] = this.lengths[slot] as number;
      ids.push(id);
      terms.push(this.slotTerms[slot]);
      const place = this.places.get(id);
      if (place) place.slot = renumber[slot];
    });
    for (const postings of this.postings) postings.keep(renumber);
    this.slotIds = ids;
    this.slotTerms = terms;
    this.lengths = lengths;
  }

  private ensureCapacity(slots: number): void {
    if (slots <= this.lengths.length) return;
    const size = Math.max(slots, this.lengths.length * 2);
    const lengths = new Float64Array(size);
    lengths.set(this.lengths);
    this.lengths = lengths;
    this.scores = new Float64Array(size);
    this.touched = new Int32Array(size);
    this.scratch = new Float64Array(size);
  }
}
