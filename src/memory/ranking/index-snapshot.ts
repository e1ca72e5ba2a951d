import { DocTable } from "./doc-table.js";
import type { IndexState } from "./index-state.js";
import { PackedPostings } from "./postings.js";
import { encodeSortedTerms, SortedTerms } from "./sorted-terms.js";

/**
 * A recall index's canonical state (`IndexState`) as bytes, so a store can keep it beside the rows it
 * was built from and a fresh process can read it in one query instead of rebuilding the index from
 * every row. Compact, since a fresh process reads it whole (about 27 bytes per message of 6–20
 * words, against 80 as plain typed arrays), and laid out so reading it is one pass: a header of
 * ten 32-bit words (magic, version, flags, documents, pairs, JSON bytes, body bytes, terms, term
 * bytes, 0); `names`, and `ids` unless every id is its order written out (as on SQLite and
 * Postgres), as JSON; the terms' UTF-8 bytes one after the other, in ascending order (kept as they
 * are by a reader, `SortedTerms`: found by binary search, never parsed); then one varint stream:
 * each term's byte length, each term's document frequency (so a reader lays out the posting lists
 * before it reads a document, and fills them as it reads), then per document its pair count, its
 * order (the step from the previous one; or, when orders are not ascending whole numbers, all
 * orders as float64 before the stream), length, group, label (+1, times 2, plus asks), speaker
 * (+1), and its [term, frequency] pairs (term × 2, plus 1 when a frequency above 1 follows).
 */
const MAGIC = 0x52494458; // "RIDX"
const VERSION = 4;
const IDS_ARE_ORDERS = 1;
const RAW_ORDERS = 2;
const HEADER_BYTES = 40;

/**
 * How many changes applied to a cached index of `documents` documents make its stored snapshot
 * worth writing again: a sixteenth of it, between 16 and 256, so what a fresh process applies on
 * top of the bytes stays a small part of what a build would read.
 */
export function snapshotRefreshRows(documents: number): number {
  return Math.min(256, Math.max(16, Math.floor(documents / 16)));
}

/** A growing byte buffer written as unsigned varints (LEB128, up to 2^53). */
class VarintWriter {
  bytes = new Uint8Array(1024);
  length = 0;

  write(value: number): void {
    if (this.length + 8 > this.bytes.length) {
      const next = new Uint8Array(this.bytes.length * 2);
      next.set(this.bytes);
      this.bytes = next;
    }
    let v = value;
    while (v >= 0x80) {
      this.bytes[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.bytes[this.length++] = v;
  }
}

/** The bytes of `state` (see the layout above). Pure. */
export function encodeIndexState(state: IndexState): Uint8Array {
  const { docs } = state;
  const n = docs.count;
  let idsAreOrders = true;
  let wholeAscending = true;
  let previous = 0;
  for (let i = 0; i < n; i++) {
    const order = docs.orders[i] as number;
    if (idsAreOrders) idsAreOrders = state.ids[i] === String(order);
    if (wholeAscending) wholeAscending = Number.isSafeInteger(order) && order >= previous;
    previous = order;
  }
  const body = new VarintWriter();
  const terms = encodeSortedTerms(state.terms);
  for (const length of terms.lengths) body.write(length);
  const df = new Int32Array(state.terms.length);
  for (let i = 0; i < docs.pool.length; i += 2) df[docs.pool[i] as number] = (df[docs.pool[i] as number] as number) + 1;
  for (const count of df) body.write(count);
  previous = 0;
  for (let slot = 0; slot < n; slot++) {
    const [from, to] = [docs.starts[slot] as number, docs.starts[slot + 1] as number];
    body.write((to - from) / 2);
    if (wholeAscending) body.write((docs.orders[slot] as number) - previous);
    previous = docs.orders[slot] as number;
    body.write(docs.lengths[slot] as number);
    body.write(docs.groups[slot] as number);
    body.write(((docs.labels[slot] as number) + 1) * 2 + (docs.asks[slot] as number));
    body.write((docs.speakers[slot] as number) + 1);
    for (let i = from; i < to; i += 2) {
      const tf = docs.pool[i + 1] as number;
      body.write((docs.pool[i] as number) * 2 + (tf > 1 ? 1 : 0));
      if (tf > 1) body.write(tf);
    }
  }
  const json = new TextEncoder().encode(JSON.stringify(idsAreOrders ? { names: state.names } : { names: state.names, ids: state.ids }));
  const termStart = HEADER_BYTES + json.length;
  const rawStart = (termStart + terms.bytes.length + 7) & ~7;
  const bodyStart = rawStart + (wholeAscending ? 0 : n * 8);
  const out = new Uint8Array(bodyStart + body.length);
  const flags = (idsAreOrders ? IDS_ARE_ORDERS : 0) | (wholeAscending ? 0 : RAW_ORDERS);
  const header = new DataView(out.buffer, 0, HEADER_BYTES);
  [MAGIC, VERSION, flags, n, docs.pool.length / 2, json.length, body.length, state.terms.length, terms.bytes.length].forEach((word, i) => header.setUint32(4 * i, word, true));
  out.set(json, HEADER_BYTES);
  out.set(terms.bytes, termStart);
  if (!wholeAscending) new Float64Array(out.buffer, rawStart, n).set(docs.orders.subarray(0, n));
  out.set(body.bytes.subarray(0, body.length), bodyStart);
  return out;
}

/**
 * The state `bytes` hold, checked as it is read (every reference in range); throws, naming what is
 * wrong, on anything else. `ids` null: every id is its document's order written out (not made
 * here); `postings`: the documents' posting lists, packed and counted (filled as the documents are read).
 */
export function decodeIndexState(bytes: Uint8Array): Omit<IndexState, "ids" | "terms"> & { terms: SortedTerms; ids: string[] | null; postings: PackedPostings } {
  if (bytes.byteLength < HEADER_BYTES) fail("too short");
  // Read in place (a pg Buffer may start anywhere in its pool): the header through a view, the raw orders copied out aligned.
  const header = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  const word = (i: number): number => header.getUint32(4 * i, true);
  const [magic, version, flags, n, pairs, jsonLength, bodyLength, termCount, termBytes] = [word(0), word(1), word(2), word(3), word(4), word(5), word(6), word(7), word(8)];
  if (magic !== MAGIC || version !== VERSION) fail(`unknown format (magic ${magic}, version ${version})`);
  const rawOrders = (flags & RAW_ORDERS) !== 0;
  const termStart = HEADER_BYTES + jsonLength;
  const rawStart = (termStart + termBytes + 7) & ~7;
  const bodyStart = rawStart + (rawOrders ? n * 8 : 0);
  if (bytes.length !== bodyStart + bodyLength) fail("length does not match its header");
  const strings = JSON.parse(new TextDecoder().decode(bytes.subarray(HEADER_BYTES, termStart))) as Partial<IndexState>;
  const { names } = strings;
  if (!Array.isArray(names)) return fail("strings missing");
  const docs = DocTable.ofSize(n, pairs, rawOrders ? new Float64Array(bytes.slice(rawStart, rawStart + n * 8).buffer) : undefined);
  const stream = new VarintReader(bytes, bodyStart);
  const terms = readTerms(stream, bytes.slice(termStart, termStart + termBytes), termCount);
  const runs = new Runs(stream, termCount, pairs);
  readDocuments(stream, docs, runs, !rawOrders, names.length);
  if (stream.at !== bytes.length) fail("fewer pairs than its header says");
  const postings = new PackedPostings();
  postings.restore(runs.offsets, runs.slots, runs.tfs, runs.maxTf, n);
  if ((flags & IDS_ARE_ORDERS) !== 0) return { terms, names, ids: null, docs, postings };
  const { ids } = strings;
  if (!Array.isArray(ids) || ids.length !== n || ids.some((id) => typeof id !== "string")) fail("ids");
  return { terms, names, ids, docs, postings };
}

/** The `count` terms of `bytes`, their lengths read from `stream`; checked (`SortedTerms.of`). */
function readTerms(stream: VarintReader, bytes: Uint8Array, count: number): SortedTerms {
  const starts = new Int32Array(count + 1);
  for (let term = 0; term < count; term++) starts[term + 1] = (starts[term] as number) + stream.read();
  try {
    return SortedTerms.of(bytes, starts);
  } catch (error) {
    return fail((error as Error).message);
  }
}

function fail(what: string): never {
  throw new Error(`recall index snapshot: ${what}`);
}

/** The posting lists being filled as documents are read: each term's run laid out from its document frequency, read first. */
class Runs {
  readonly offsets: Int32Array<ArrayBuffer>;
  /** Where each term's next slot goes. */
  readonly next: Int32Array<ArrayBuffer>;
  readonly slots: Int32Array<ArrayBuffer>;
  readonly tfs: Uint16Array<ArrayBuffer>;
  readonly maxTf: Uint16Array<ArrayBuffer>;

  constructor(
    stream: VarintReader,
    readonly terms: number,
    pairs: number,
  ) {
    this.offsets = new Int32Array(terms + 1);
    for (let term = 0; term < terms; term++) this.offsets[term + 1] = (this.offsets[term] as number) + stream.read();
    if (this.offsets[terms] !== pairs) fail("document frequencies do not add up to its pairs");
    this.next = this.offsets.slice(0, terms);
    this.slots = new Int32Array(pairs);
    this.tfs = new Uint16Array(pairs);
    this.maxTf = new Uint16Array(Math.max(terms, 64));
  }
}

/**
 * Reads every document of `docs` from `stream` (its columns and pairs; orders too when
 * `orderSteps`), filling `runs` as it goes; checks every reference. One plain loop, called once per
 * snapshot, so it is optimised as one.
 */
function readDocuments(stream: VarintReader, docs: DocTable, runs: Runs, orderSteps: boolean, nameCount: number): void {
  const { pool, orders, lengths, groups, labels, speakers, asks, starts } = docs;
  const { offsets, next, slots, tfs, maxTf, terms } = runs;
  let order = 0;
  let end = 0;
  for (let slot = 0; slot < docs.count; slot++) {
    const count = stream.read();
    if (end + 2 * count > pool.length) fail("more pairs than its header says");
    if (orderSteps) orders[slot] = order += stream.read();
    lengths[slot] = stream.read();
    const group = stream.read();
    const label = stream.read();
    const speaker = stream.read() - 1;
    if (group >= nameCount || (label >> 1) - 1 >= nameCount || speaker >= nameCount) fail("name reference");
    groups[slot] = group;
    labels[slot] = (label >> 1) - 1;
    asks[slot] = label & 1;
    speakers[slot] = speaker;
    starts[slot] = end;
    for (let k = 0; k < count; k++) {
      const word = stream.read();
      const term = Math.floor(word / 2);
      if (term >= terms) fail("term reference");
      const tf = (word & 1) === 1 ? stream.read() : 1;
      pool[end++] = term;
      pool[end++] = tf;
      const run = next[term] as number;
      if (run >= (offsets[term + 1] as number)) fail("more documents hold a term than its frequency says");
      next[term] = run + 1;
      slots[run] = slot;
      const capped = tf < 0xffff ? tf : 0xffff;
      tfs[run] = capped;
      if (capped > (maxTf[term] as number)) maxTf[term] = capped;
    }
  }
  starts[docs.count] = end;
  if (end !== pool.length) fail("fewer pairs than its header says");
}

/** Unsigned varints (see `VarintWriter`) from `at` to the end of `bytes`; reading past the end throws. */
class VarintReader {
  constructor(
    private readonly bytes: Uint8Array,
    public at: number,
  ) {}

  read(): number {
    const byte = this.bytes[this.at++];
    // Most values fit one byte.
    return byte !== undefined && byte < 0x80 ? byte : this.readLong(byte);
  }

  private readLong(first: number | undefined): number {
    if (first === undefined) throw new Error("recall index snapshot: truncated");
    let value = first & 0x7f;
    let scale = 0x80;
    for (;;) {
      const byte = this.bytes[this.at++];
      if (byte === undefined) throw new Error("recall index snapshot: truncated");
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
    }
  }
}
