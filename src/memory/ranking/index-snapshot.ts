import { DocTable, type Room } from "./doc-table.js";
import type { IndexState } from "./index-state.js";
import { PackedPostings } from "./postings.js";
import { encodeSortedTerms, SortedTerms } from "./sorted-terms.js";
import { checksum, LazyItems, Pieces, unfilledInt32, unfilledUint16, VarintReader, VarintWriter } from "./varints.js";

/**
 * A recall index's canonical state (`IndexState`) as bytes, so a store can keep it beside the rows it
 * was built from and a fresh process can read it in one query instead of rebuilding the index from
 * every row. Laid out so that a restore reads only what every query needs and leaves each
 * document's pairs and each term's posting list as bytes until a query reads them (a query reads
 * a few documents' pairs, for feedback, and its own terms' lists): a header of twelve 32-bit words
 * (magic, version, flags, documents, pairs, JSON bytes, stream bytes, terms, term bytes, pair
 * bytes, posting bytes, and a checksum of the pairs and lists, `checksum`); `names`, and `ids` unless every id is its order written out (as on
 * SQLite and Postgres), as JSON; the terms' UTF-8 bytes one after the other, in ascending order
 * (kept as they are by a reader, `SortedTerms`: found by binary search, never parsed); when orders
 * are not ascending whole numbers, all orders as float64; then one varint stream: each term's byte
 * length, then per term its document frequency, its largest frequency (less 1) and its posting
 * list's byte length, then per document its pair count, its order (the step from the previous
 * one, unless given as float64), length, group, label (+1, times 2, plus asks), speaker (+1) and
 * its pairs' byte length; then every document's [term, frequency] pairs (term × 2, plus 1 when a
 * frequency above 1 follows); then every term's posting list (per document holding it, the step
 * from the previous one (from 0), times 2, plus 1 when a frequency above 1 follows). The pairs and
 * the lists hold the same pairs twice (about 60% more bytes than the pairs alone), so that
 * neither has to be built from the other on a restore.
 */
const MAGIC = 0x52494458; // "RIDX"
const VERSION = 5;
const IDS_ARE_ORDERS = 1;
const RAW_ORDERS = 2;
const HEADER_BYTES = 48;
/**
 * Pairs and lists of fewer bytes than this (about 1,500 messages) are read on a restore: reading
 * them takes well under a millisecond, and keeping their bytes would hold them twice.
 */
const LAZY_FROM_BYTES = 64 * 1024;

/**
 * How many changes applied to a cached index of `documents` documents make its stored snapshot
 * worth writing again: a sixteenth of it, between 16 and 256, so what a fresh process applies on
 * top of the bytes stays a small part of what a build would read.
 */
export function snapshotRefreshRows(documents: number): number {
  return Math.min(256, Math.max(16, Math.floor(documents / 16)));
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
  const stream = new VarintWriter();
  const terms = encodeSortedTerms(state.terms);
  for (const length of terms.lengths) stream.write(length);
  const lists = postingLists(docs, state.terms.length, stream);
  const pairs = new VarintWriter();
  previous = 0;
  for (let slot = 0; slot < n; slot++) {
    const [from, to] = [docs.starts[slot] as number, docs.starts[slot + 1] as number];
    stream.write((to - from) / 2);
    if (wholeAscending) stream.write((docs.orders[slot] as number) - previous);
    previous = docs.orders[slot] as number;
    stream.write(docs.lengths[slot] as number);
    stream.write(docs.groups[slot] as number);
    stream.write(((docs.labels[slot] as number) + 1) * 2 + (docs.asks[slot] as number));
    stream.write((docs.speakers[slot] as number) + 1);
    const start = pairs.length;
    for (let i = from; i < to; i += 2) writePair(pairs, docs.pool[i] as number, docs.pool[i + 1] as number);
    stream.write(pairs.length - start);
  }
  const json = new TextEncoder().encode(JSON.stringify(idsAreOrders ? { names: state.names } : { names: state.names, ids: state.ids }));
  const termStart = HEADER_BYTES + json.length;
  const rawStart = (termStart + terms.bytes.length + 7) & ~7;
  const streamStart = rawStart + (wholeAscending ? 0 : n * 8);
  const parts = [stream.written, pairs.written, lists.written];
  const out = new Uint8Array(streamStart + stream.length + pairs.length + lists.length);
  const flags = (idsAreOrders ? IDS_ARE_ORDERS : 0) | (wholeAscending ? 0 : RAW_ORDERS);
  const header = new DataView(out.buffer, 0, HEADER_BYTES);
  const words = [MAGIC, VERSION, flags, n, docs.pool.length / 2, json.length, stream.length, state.terms.length, terms.bytes.length, pairs.length, lists.length];
  words.forEach((word, i) => header.setUint32(4 * i, word, true));
  out.set(json, HEADER_BYTES);
  out.set(terms.bytes, termStart);
  if (!wholeAscending) new Float64Array(out.buffer, rawStart, n).set(docs.orders.subarray(0, n));
  let at = streamStart;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  header.setInt32(44, checksum(out.subarray(streamStart + stream.length)), true);
  return out;
}

/** A pair or a posting: `value` × 2, plus 1 when a frequency above 1 (`tf`) follows. */
function writePair(writer: VarintWriter, value: number, tf: number): void {
  writer.write(value * 2 + (tf > 1 ? 1 : 0));
  if (tf > 1) writer.write(tf);
}

/** Every term's posting list as bytes; writes to `directory` per term its document frequency, largest frequency (less 1) and list's byte length. */
function postingLists(docs: DocTable, terms: number, directory: VarintWriter): VarintWriter {
  const runs = new PackedPostings();
  runs.pack(docs, terms, () => true);
  const bytes = new VarintWriter();
  for (let term = 0; term < terms; term++) {
    const [from, to] = runs.runOf(term);
    const start = bytes.length;
    // Steps from 0, not less 1: a document may hold a term in two pairs (`countedPairs` when the term ids grow mid-document).
    let [previous, maxTf] = [0, 1];
    for (let i = from; i < to; i++) {
      const tf = runs.tfs[i] as number;
      writePair(bytes, (runs.slots[i] as number) - previous, tf);
      previous = runs.slots[i] as number;
      if (tf > maxTf) maxTf = tf;
    }
    directory.write(to - from);
    directory.write(maxTf - 1);
    directory.write(bytes.length - start);
  }
  return bytes;
}

/**
 * The state `bytes` hold, checked as it is read (every reference and length in range; a
 * document's pairs and a term's list are checked when first read, see the layout above); throws,
 * naming what is wrong, on anything else. `ids` null: every id is its document's order written
 * out (not made here); `postings`: the documents' posting lists, laid out and counted. `spare`:
 * room for the documents about to be added on top, made with the arrays (see `DocTable.ofSize`).
 * `bytes` in pieces (a COPY's output as it came), or that are a whole buffer of their own, are
 * kept and read in place: not to be changed after.
 */
export function decodeIndexState(bytes: Uint8Array | readonly Uint8Array[], spare?: Room): Omit<IndexState, "ids" | "terms"> & { terms: SortedTerms; ids: string[] | null; postings: PackedPostings } {
  const source = piecesOf(bytes);
  if (source.length < HEADER_BYTES) fail("too short");
  // Read in place (a pg Buffer may start anywhere in its pool): the header through a view, the raw orders copied out aligned.
  const head = source.bytes(0, HEADER_BYTES);
  const header = new DataView(head.buffer, head.byteOffset, HEADER_BYTES);
  const word = (i: number): number => header.getUint32(4 * i, true);
  const [magic, version, flags, n, pairs, jsonLength, streamLength, termCount, termBytes] = [word(0), word(1), word(2), word(3), word(4), word(5), word(6), word(7), word(8)];
  const [pairBytes, listBytes] = [word(9), word(10)];
  if (magic !== MAGIC || version !== VERSION) fail(`unknown format (magic ${magic}, version ${version})`);
  const rawOrders = (flags & RAW_ORDERS) !== 0;
  const termStart = HEADER_BYTES + jsonLength;
  const rawStart = (termStart + termBytes + 7) & ~7;
  const streamStart = rawStart + (rawOrders ? n * 8 : 0);
  const [pairStart, listStart] = [streamStart + streamLength, streamStart + streamLength + pairBytes];
  if (source.length !== listStart + listBytes) fail("length does not match its header");
  const strings = JSON.parse(new TextDecoder().decode(source.bytes(HEADER_BYTES, termStart))) as Partial<IndexState>;
  const { names } = strings;
  if (!Array.isArray(names)) return fail("strings missing");
  const docs = DocTable.ofSize(n, pairs, spare);
  // Raw orders are copied as bytes into the aligned column.
  if (rawOrders) new Uint8Array(docs.orders.buffer, 0, n * 8).set(source.bytes(rawStart, rawStart + n * 8));
  // The stream in one array: read once, in one hot loop, then let go, so when it spans pieces it is
  // copied into memory the process keeps for it (pages written once, not per restore).
  if (streamLength > streamScratch.length && streamLength <= STREAM_SCRATCH_MAX) streamScratch = Buffer.allocUnsafeSlow(Math.max(streamLength, 2 * streamScratch.length));
  const stream = new VarintReader(source.bytes(streamStart, pairStart, streamScratch), 0);
  const terms = readTerms(stream, source.bytes(termStart, termStart + termBytes), termCount);
  const runs = readRuns(stream, termCount, pairs, listBytes, spare?.pairs ?? 0);
  const pairStarts = readDocuments(stream, docs, !rawOrders, names.length, pairs, pairBytes);
  if (stream.at !== streamLength) fail("its stream does not end where its header says");
  const tail = source.slice(pairStart);
  if (checksum(tail) !== (word(11) | 0)) fail("its pairs or posting lists are damaged (checksum)");
  docs.restorePairs(new LazyItems(tail.slice(0, pairBytes), pairStarts), termCount);
  const postings = new PackedPostings();
  postings.restore(runs.offsets, runs.maxTf, n, new LazyItems(tail.slice(pairBytes), runs.starts));
  if (pairBytes + listBytes < LAZY_FROM_BYTES) {
    docs.readAllPairs();
    postings.fillAll();
  }
  if ((flags & IDS_ARE_ORDERS) !== 0) return { terms, names, ids: null, docs, postings };
  const { ids } = strings;
  if (!Array.isArray(ids) || ids.length !== n || ids.some((id) => typeof id !== "string")) fail("ids");
  return { terms, names, ids, docs, postings };
}

/** Where a restore copies a stream cut by a piece's end (see `decodeIndexState`); grown up to `STREAM_SCRATCH_MAX` (a user of ~400,000 messages). */
let streamScratch = Buffer.allocUnsafeSlow(64 * 1024);
const STREAM_SCRATCH_MAX = 4 * 1024 * 1024;

/**
 * `bytes` as pieces a restore may keep: pieces as they are, bytes that are a whole buffer of their
 * own likewise (as SQLite reads them; copying the terms and the tail out of them wrote ~140 KB of
 * fresh pages per LongMemEval user), and bytes within a larger buffer copied, so the index does
 * not keep the rest of it. A Buffer either way (the pieces are), so the decoding meets one kind of array.
 */
function piecesOf(bytes: Uint8Array | readonly Uint8Array[]): Pieces {
  if (!(bytes instanceof Uint8Array)) return new Pieces(bytes);
  const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && Buffer.isBuffer(bytes);
  return new Pieces([own ? bytes : Buffer.from(bytes)]);
}

/** The `count` terms of `bytes`, their lengths read from `stream`; checked (`SortedTerms.of`). */
function readTerms(stream: VarintReader, bytes: Uint8Array, count: number): SortedTerms {
  const starts = unfilledInt32(count + 1);
  readSteps(stream, starts);
  try {
    return SortedTerms.of(bytes, starts);
  } catch (error) {
    return fail((error as Error).message);
  }
}

/**
 * Fills `sums` with 0 and the running sums of `sums.length - 1` varints. The long loops of a
 * restore are functions with nothing after the loop: V8 compiles a loop while it runs (on-stack
 * replacement), and code after it that had not run yet deoptimised the function on most restores.
 */
function readSteps(stream: VarintReader, sums: Int32Array): void {
  sums[0] = 0;
  for (let i = 1; i < sums.length; i++) sums[i] = (sums[i - 1] as number) + stream.read();
}

function fail(what: string): never {
  throw new Error(`recall index snapshot: ${what}`);
}

/**
 * The posting lists' layout, each term's largest frequency (with room for `newTerms` more terms)
 * and where each term's list starts in the lists' bytes (`listBytes` in all); checked to add up to
 * `pairs` and `listBytes`.
 */
function readRuns(stream: VarintReader, terms: number, pairs: number, listBytes: number, newTerms: number): { offsets: Int32Array<ArrayBuffer>; maxTf: Uint16Array<ArrayBuffer>; starts: Int32Array } {
  // Unzeroed and written in full (`maxTf` beyond `terms` zeroed, for the terms to come).
  const offsets = unfilledInt32(terms + 1);
  const starts = unfilledInt32(terms + 1);
  const maxTf = unfilledUint16(Math.max(terms + newTerms, 64)).fill(0, terms);
  readDirectory(stream, offsets, maxTf, starts);
  if (offsets[terms] !== pairs) fail("document frequencies do not add up to its pairs");
  if (starts[terms] !== listBytes) fail("posting lists do not add up to their bytes");
  return { offsets, maxTf, starts };
}

/** Reads the term directory (per term its document frequency, largest frequency less 1 and list's byte length) into running sums and `maxTf` (a loop alone, see `readSteps`). */
function readDirectory(stream: VarintReader, offsets: Int32Array, maxTf: Uint16Array, starts: Int32Array): void {
  offsets[0] = 0;
  starts[0] = 0;
  for (let term = 0; term + 1 < offsets.length; term++) {
    offsets[term + 1] = (offsets[term] as number) + stream.read();
    maxTf[term] = Math.min(stream.read() + 1, 0xffff);
    starts[term + 1] = (starts[term] as number) + stream.read();
  }
}

/**
 * Reads the columns of every document of `docs` from `stream` (orders too when `orderSteps`) and
 * where each one's pairs lie: in the pool (`starts`) and in the pairs' bytes (returned, `pairBytes`
 * in all); checks every reference.
 */
function readDocuments(stream: VarintReader, docs: DocTable, orderSteps: boolean, nameCount: number, pairs: number, pairBytes: number): Int32Array {
  const pairStarts = new Int32Array(docs.count + 1);
  readColumns(stream, docs, orderSteps, nameCount, pairs, pairStarts);
  if (docs.starts[docs.count] !== 2 * pairs) fail("fewer pairs than its header says");
  if (pairStarts[docs.count] !== pairBytes) fail("pairs do not add up to their bytes");
  return pairStarts;
}

/** `readDocuments`' loop, alone (see `readSteps`): every column, and the running sums of pairs (`docs.starts`) and their bytes (`pairStarts`). */
function readColumns(stream: VarintReader, docs: DocTable, orderSteps: boolean, nameCount: number, pairs: number, pairStarts: Int32Array): void {
  const { orders, lengths, groups, labels, speakers, asks, starts } = docs;
  let order = 0;
  let end = 0;
  let byteEnd = 0;
  starts[0] = 0;
  pairStarts[0] = 0;
  for (let slot = 0; slot < docs.count; slot++) {
    const count = stream.read();
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
    starts[slot + 1] = end += 2 * count;
    if (end > 2 * pairs) fail("more pairs than its header says");
    pairStarts[slot + 1] = byteEnd += stream.read();
  }
}
