import { bm25Parameters, type Bm25Options } from "./bm25.js";
import type { DocTraits } from "./document-text.js";
import { countedPairs, DocTable, type DocRow, type Room } from "./doc-table.js";
import { Names } from "./sorted-terms.js";
import { canonicalState, type IndexState } from "./index-state.js";
import { decodeIndexState, encodeIndexState } from "./index-snapshot.js";
import { heldBySlot, termsOfSlot } from "./document-terms.js";
import { GroupedSlots } from "./ordered-ids.js";
import { PackedPostings } from "./postings.js";
import { scanBest, type ScanView } from "./bm25-scan.js";

/** Documents added since the last pack are read from the table until their pairs pass this plus an eighth of the packed ones. */
const PACK_MIN_PAIRS = 1024;
/**
 * Estimated bytes outside typed arrays of a document (its id string, map entry and slot, its place in
 * the groups) and of a distinct term (map entry, list slot; the string itself is mostly shared, see
 * `Names`). Measured (bench:recall-users, 2,000 users of 200 synthetic messages with 1,037 cached,
 * 1,086 distinct terms each): 92 KB of heap per cached index after a forced GC beside 55 KB of array
 * buffers, where 96 and 48 bytes said 71 KB and 55 KB.
 */
const DOC_OBJECT_BYTES = 128;
const TERM_OBJECT_BYTES = 60;

/**
 * An in-process lexical index for hybrid ranking: BM25 over pre-tokenized terms, each document's
 * neighbours (the documents just before and after it in its group, a conversation's namespace, by
 * their numeric `order`) and its traits. Adding an id again replaces its terms and keeps its place.
 * Compact: documents are dense slots in typed-array columns (`DocTable`), terms, labels, speakers
 * and groups numbered once (`Names`), posting lists packed in three typed arrays for all terms
 * (`PackedPostings`); documents added since the last pack are read from the table. `bytes` is what
 * it holds. Scoring returns exactly the best `limit` matches: terms are read from the highest
 * possible contribution down, and once the `limit`-th best score beats all the remaining terms
 * could give, they only add to documents already found (max-score pruning). Removal marks a slot
 * dead; dead slots are compacted away once they are a quarter of all.
 */
export class RecallIndex {
  private readonly bm25: { k1: number; b: number; idf: (n: number, df: number) => number };
  private terms = new Names();
  private readonly names = new Names();
  /** Slots by id, but for the first `orderedBase` slots (see `slotOfId`). */
  private readonly slotOf = new Map<string, number>();
  /**
   * Slots below this (a restored index's, until its first compaction) hold ids that are their
   * orders written out, in ascending order: found by a binary search on `docs.orders` instead of
   * `slotOf`, so restoring does not hash every id.
   */
  private orderedBase = 0;
  private readonly groups = new GroupedSlots((slot) => this.docs.orders[slot] as number);
  private docs = new DocTable();
  private postings = new PackedPostings();
  /** Per slot its id; null when the id is its order written out (a restored index's, made when asked: `idOf`); undefined once dead. */
  private slotIds: (string | null | undefined)[] = [];
  private live = 0;
  private totalLength = 0;
  private minLength = Infinity;

  constructor(options: Bm25Options = {}) {
    this.bm25 = bm25Parameters(options);
  }

  get size(): number {
    return this.live;
  }

  /** Estimated memory held, in bytes: the typed arrays' actual sizes plus a measured estimate per document and distinct term. */
  get bytes(): number {
    return this.docs.bytes + this.postings.bytes + this.slotIds.length * DOC_OBJECT_BYTES + this.terms.size * TERM_OBJECT_BYTES;
  }

  has = (id: string): boolean => this.slotOfId(id) !== undefined;

  /** Makes room for `room`'s documents and terms more, so a build of known size allocates once. */
  reserve(room: Room): void {
    this.docs.reserve(room);
  }

  /** Indexes `terms` as `id` in `group` at position `order` (ids of one group ordered by it), with its `traits`. */
  add(id: string, terms: readonly string[], group: string, order: number, traits?: DocTraits): void {
    const old = this.slotOfId(id);
    const row = this.rowOf(terms, this.names.intern(group), order, traits);
    if (old !== undefined) {
      const oldGroup = this.docs.groups[old] as number;
      const sameGroup = oldGroup === row.group;
      if (sameGroup) row.order = this.docs.orders[old] as number;
      else this.groups.delete(old, oldGroup);
      this.release(old);
      const slot = this.place(id, row);
      if (sameGroup) this.groups.replace(old, slot, row.group);
      else this.groups.insert(slot, row.group);
      this.compactIfSparse();
      return;
    }
    this.groups.insert(this.place(id, row), row.group);
  }

  remove(id: string): void {
    const slot = this.slotOfId(id);
    if (slot === undefined) return;
    this.groups.delete(slot, this.docs.groups[slot] as number);
    this.release(slot);
    this.slotOf.delete(id);
    this.compactIfSparse();
  }

  /** Packs the posting lists of every document added so far (a build calls it once at its end; queries do it as needed). */
  pack(): void {
    this.postings.pack(this.docs, this.terms.size, (slot) => this.slotIds[slot] !== undefined);
  }

  /**
   * The live documents as bytes (`encodeIndexState` of their canonical state): nothing of a removed
   * document, and `fromSnapshot` of them ranks as a fresh build of the same documents does.
   */
  toSnapshot(): Uint8Array {
    return encodeIndexState(this.snapshotState());
  }

  /** The live documents in canonical form (`canonicalState`), as `toSnapshot` writes them. */
  snapshotState(): IndexState {
    return canonicalState(this.docs, this.terms.all(), this.names.all(), this.slotIds.map((id, slot) => (id === null ? this.idOf(slot) : id)));
  }

  /** The index `bytes` (from `toSnapshot`, whole or in pieces) hold, packed, with `spare` room for rows to be added (`roomFor`); throws on bytes that are not a snapshot. */
  static fromSnapshot(bytes: Uint8Array | readonly Uint8Array[], options: Bm25Options = {}, spare?: Room): RecallIndex {
    const state = decodeIndexState(bytes, spare);
    const index = new RecallIndex(options);
    index.terms = Names.ofSorted(state.terms);
    for (const name of state.names) index.names.intern(name);
    const { docs, ids } = state;
    const n = docs.count;
    index.docs = docs;
    index.slotIds = ids ?? new Array<null>(n).fill(null);
    index.live = n;
    let ascending = ids === null;
    for (let slot = 0; slot < n; slot++) {
      const length = docs.lengths[slot] as number;
      index.totalLength += length;
      if (length < index.minLength) index.minLength = length;
      if (slot > 0 && (docs.orders[slot] as number) <= (docs.orders[slot - 1] as number)) ascending = false;
    }
    if (ascending) index.orderedBase = n;
    else for (let slot = 0; slot < n; slot++) index.slotOf.set(index.idOf(slot), slot);
    index.groups.fill(n, state.names.length, (slot) => docs.groups[slot] as number);
    index.postings = state.postings;
    return index;
  }

  /** The `n` ids with the highest `order` (the newest written), newest first. */
  newest(n: number): string[] {
    return this.groups.newest(n).map((slot) => this.idOf(slot));
  }

  /** How many documents hold `term`. */
  documentFrequency(term: string): number {
    const id = this.terms.find(term);
    return id < 0 ? 0 : (this.postings.df[id] ?? 0);
  }

  /** The share (0..1) of documents holding `term`. */
  documentShare(term: string): number {
    return this.live === 0 ? 0 : this.documentFrequency(term) / this.live;
  }

  /** The best `limit` BM25 scores for `terms` (each distinct term once; all matches when fewer), BM25's `b` being `lengthNorm` when given. */
  score(terms: readonly string[], limit: number, lengthNorm?: number): Map<string, number> {
    const out = new Map<string, number>();
    if (this.live === 0 || limit < 1) return out;
    const packed = this.docs.starts[this.postings.packedSlots] as number;
    if ((this.docs.starts[this.docs.count] as number) - packed > 2 * PACK_MIN_PAIRS + packed / 8) this.pack();
    const ids = new Set<number>();
    for (const term of terms) {
      const id = this.terms.find(term);
      if (id >= 0) ids.add(id);
    }
    const view: ScanView = { ...this.bm25, b: lengthNorm ?? this.bm25.b, docs: this.docs, postings: this.postings, slotIds: this.slotIds, live: this.live, totalLength: this.totalLength, minLength: this.minLength };
    for (const { slot, score } of scanBest(view, [...ids], this.terms.size, limit)) out.set(this.idOf(slot), score);
    return out;
  }

  termsOf(ids: readonly string[]): Map<string, readonly string[]> {
    return this.perDocument(ids, (slot) => termsOfSlot(this.docs, this.terms, slot));
  }

  /**
   * For each live id, which of `terms` it holds, each once (`heldBySlot`: found by term number in its
   * pairs, no other term of it made into a string; `demoteRepeats` asks this of a ranking's best 30
   * documents, which `termsOf` listed whole).
   */
  heldOf(ids: readonly string[], terms: readonly string[]): Map<string, readonly string[]> {
    const wanted = new Map<number, string>();
    for (const term of terms) {
      const id = this.terms.find(term);
      if (id >= 0) wanted.set(id, term);
    }
    return this.perDocument(ids, (slot) => heldBySlot(this.docs, wanted, slot));
  }

  neighboursOf(ids: readonly string[]): Map<string, readonly string[]> {
    return this.perDocument(ids, (slot) => this.groups.around(slot, this.docs.groups[slot] as number).map((at) => this.idOf(at)));
  }

  /** The label of each id that has one (absent and unlabelled ids are left out). */
  labelsOf = (ids: Iterable<string>): Map<string, string> => this.namedBy(ids, this.docs.labels);

  /** The speaker of each id that names one (absent ids and ids without a speaker are left out). */
  speakersOf = (ids: Iterable<string>): Map<string, string> => this.namedBy(ids, this.docs.speakers);

  /** The group (a conversation's namespace) of each id (absent ids are left out). */
  groupsOf = (ids: Iterable<string>): Map<string, string> => this.namedBy(ids, this.docs.groups);

  /** For each id that asks a question, the id after it in its group (absent when it is the last). */
  answersOf(ids: Iterable<string>): Map<string, string> {
    return this.perDocument(ids, (slot) => {
      const next = this.docs.asks[slot] === 1 ? this.groups.next(slot, this.docs.groups[slot] as number) : undefined;
      return next === undefined ? undefined : this.idOf(next);
    });
  }

  /** The number of indexed terms of each id (absent ids are left out). */
  lengthsOf(ids: readonly string[]): Map<string, number> {
    return this.perDocument(ids, (slot) => this.docs.lengths[slot] as number);
  }

  /** `read` of the slot of each live id of `ids`, by id; ids it gives undefined for are left out. Read by index (for…of over a map's keys made a result object per step: 49 KB a first search). */
  private perDocument<T>(ids: Iterable<string>, read: (slot: number) => T | undefined): Map<string, T> {
    const out = new Map<string, T>();
    const list = Array.isArray(ids) ? (ids as readonly string[]) : Array.from(ids);
    for (let i = 0; i < list.length; i++) {
      const slot = this.slotOfId(list[i] as string);
      const value = slot === undefined ? undefined : read(slot);
      if (value !== undefined) out.set(list[i] as string, value);
    }
    return out;
  }

  private namedBy(ids: Iterable<string>, column: Int32Array): Map<string, string> {
    return this.perDocument(ids, (slot) => ((column[slot] as number) >= 0 ? this.names.nameOf(column[slot] as number) : undefined));
  }

  /** The row of a document: its distinct terms' [termId, tf] pairs in order of first appearance (counted), its place and traits. */
  private rowOf(terms: readonly string[], group: number, order: number, traits: DocTraits | undefined): DocRow {
    const { pairs, n } = countedPairs(terms, this.terms);
    const label = traits?.label === undefined ? -1 : this.names.intern(traits.label);
    const speaker = traits?.speaker === undefined ? -1 : this.names.intern(traits.speaker);
    return { pairs, n, length: terms.length, group, order, label, speaker, asks: traits?.asks === true };
  }

  /** The slot of the live document `id`, or undefined; one found by binary search is kept in `slotOf` (a ranking asks for its ids several times). */
  private slotOfId(id: string): number | undefined {
    const slot = this.slotOf.get(id);
    if (slot !== undefined || this.orderedBase === 0) return slot;
    const at = this.docs.slotOfOrder(Number(id), this.orderedBase);
    if (at < 0 || this.slotIds[at] === undefined || this.idOf(at) !== id) return undefined;
    this.slotOf.set(id, at);
    return at;
  }

  /** The id of the live `slot` (an order written out is kept, so a ranking makes each id once). */
  private idOf(slot: number): string {
    const id = this.slotIds[slot] ?? `${this.docs.orders[slot] as number}`;
    if (this.slotIds[slot] === null) this.slotIds[slot] = id;
    return id;
  }

  /** Places `row` as `id` in a new slot; returns the slot. */
  private place(id: string, row: DocRow): number {
    for (let i = 0; i < 2 * row.n; i += 2) this.postings.count(row.pairs[i] as number, row.pairs[i + 1] as number);
    const slot = this.docs.append(row);
    this.slotIds.push(id);
    this.slotOf.set(id, slot);
    this.live += 1;
    this.totalLength += row.length;
    if (row.length < this.minLength) this.minLength = row.length;
    return slot;
  }

  /** Marks `slot` dead: its terms leave the statistics; its packed entries wait for compaction. */
  private release(slot: number): void {
    const range = this.docs.pairsOf(slot);
    for (let i = range[0]; i < range[1]; i += 2) this.postings.uncount(range[2][i] as number);
    this.slotIds[slot] = undefined;
    this.live -= 1;
    this.totalLength -= this.docs.lengths[slot] as number;
  }

  private compactIfSparse(): void {
    const dead = this.slotIds.length - this.live;
    if (dead < 64 || dead * 4 < this.slotIds.length) return;
    // The live ids in slot order, made before compaction moves the orders they may be read from.
    const ids: string[] = [];
    this.slotIds.forEach((id, slot) => void (id !== undefined && ids.push(this.idOf(slot))));
    const renumber = this.docs.compact((slot) => this.slotIds[slot] !== undefined);
    this.groups.renumber(renumber);
    this.orderedBase = 0;
    // Compaction keeps the live slots in order, numbered from 0: the k-th live id is at slot k.
    ids.forEach((id, slot) => this.slotOf.set(id, slot));
    this.slotIds = ids;
    this.pack();
  }
}
