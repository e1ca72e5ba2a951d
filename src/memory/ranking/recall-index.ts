import { Bm25Index, type Bm25Options } from "./bm25.js";

/**
 * An in-process lexical index of many documents for hybrid ranking: BM25 over pre-tokenized
 * terms, plus each document's neighbours — the documents added just before and after it in the
 * same group (a conversation's namespace), in the order of their numeric `order` key. Adding an
 * id again replaces its terms and keeps its place. Scoring returns only the best `limit` matches,
 * so a query costs the length of its posting lists, not a sort of every match.
 */
export class RecallIndex {
  private readonly bm25: Bm25Index;
  private readonly groups = new Map<string, string[]>();
  private readonly placeOf = new Map<string, { group: string; order: number }>();
  /** Every id, ascending by `order` (appends are the common case). */
  private readonly byOrder: string[] = [];

  constructor(options: Bm25Options = {}) {
    this.bm25 = new Bm25Index(options);
  }

  get size(): number {
    return this.bm25.size;
  }

  has(id: string): boolean {
    return this.placeOf.has(id);
  }

  /** Indexes `terms` as `id` in `group` at position `order` (ids of one group ordered by it). */
  add(id: string, terms: readonly string[], group: string, order: number): void {
    this.bm25.add(id, terms);
    const place = this.placeOf.get(id);
    if (place && place.group === group) return;
    if (place) this.removeFromGroup(id, place.group);
    this.placeOf.set(id, { group, order });
    let ids = this.groups.get(group);
    if (!ids) this.groups.set(group, (ids = []));
    this.insertOrdered(ids, id, order);
    if (!place) this.insertOrdered(this.byOrder, id, order);
  }

  /** The `n` ids with the highest `order` (the newest written), newest first. */
  newest(n: number): string[] {
    return this.byOrder.slice(Math.max(0, this.byOrder.length - n)).reverse();
  }

  private insertOrdered(ids: string[], id: string, order: number): void {
    const last = ids[ids.length - 1];
    if (last === undefined || (this.placeOf.get(last)?.order ?? -Infinity) < order) {
      ids.push(id);
      return;
    }
    const at = ids.findIndex((other) => (this.placeOf.get(other)?.order ?? 0) > order);
    ids.splice(at < 0 ? ids.length : at, 0, id);
  }

  remove(id: string): void {
    this.bm25.remove(id);
    const place = this.placeOf.get(id);
    if (!place) return;
    this.removeFromGroup(id, place.group);
    const i = this.byOrder.indexOf(id);
    if (i >= 0) this.byOrder.splice(i, 1);
    this.placeOf.delete(id);
  }

  /** The best `limit` BM25 scores for `terms` (each distinct term once); all matches when fewer. */
  score(terms: readonly string[], limit: number): Map<string, number> {
    const scores = this.bm25.score(terms);
    if (scores.size <= limit) return scores;
    const values = Float64Array.from(scores.values()).sort();
    const threshold = values[values.length - limit] ?? 0;
    const best = new Map<string, number>();
    for (const [id, score] of scores) {
      if (score >= threshold && best.size < limit) best.set(id, score);
    }
    return best;
  }

  /** The share (0..1) of documents holding `term`. */
  documentShare(term: string): number {
    return this.bm25.size === 0 ? 0 : this.bm25.documentFrequency(term) / this.bm25.size;
  }

  termsOf(ids: readonly string[]): Map<string, readonly string[]> {
    const out = new Map<string, readonly string[]>();
    for (const id of ids) {
      const terms = this.bm25.termsOf(id);
      if (terms) out.set(id, terms);
    }
    return out;
  }

  neighboursOf(ids: readonly string[]): Map<string, readonly string[]> {
    const out = new Map<string, readonly string[]>();
    for (const id of ids) {
      const place = this.placeOf.get(id);
      const group = place ? this.groups.get(place.group) : undefined;
      if (!group) continue;
      const i = this.indexIn(group, id);
      out.set(id, [group[i - 1], group[i + 1]].filter((x): x is string => x !== undefined));
    }
    return out;
  }

  private indexIn(group: readonly string[], id: string): number {
    // Binary search by order; groups are sorted by it.
    const order = this.placeOf.get(id)?.order ?? 0;
    let lo = 0;
    let hi = group.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = this.placeOf.get(group[mid] ?? "")?.order ?? 0;
      if (at === order) return mid;
      if (at < order) lo = mid + 1;
      else hi = mid - 1;
    }
    return group.indexOf(id);
  }

  private removeFromGroup(id: string, group: string): void {
    const ids = this.groups.get(group);
    if (!ids) return;
    const i = ids.indexOf(id);
    if (i >= 0) ids.splice(i, 1);
    if (ids.length === 0) this.groups.delete(group);
  }
}
