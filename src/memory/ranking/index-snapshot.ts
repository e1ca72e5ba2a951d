import { DocTable } from "./doc-table.js";
import { checkState, type IndexState } from "./index-state.js";

/**
 * A recall index's canonical state (`IndexState`) as bytes, so a store can keep it beside the rows it
 * was built from and a fresh process can read it in one query instead of rebuilding the index from
 * every row. Layout: a header of eight 32-bit words (magic, version, flags, documents, pool length,
 * JSON bytes), the strings as JSON (`terms`, `names`, and `ids` unless every id is its order written
 * out, as on SQLite and Postgres), padding to 8 bytes, then the columns: orders (float64), lengths,
 * groups, labels, speakers, starts (int32), the pool (uint16 when every term number and frequency
 * fits, else int32), asks (uint8). Native byte order; the magic word fails on any other.
 */
const MAGIC = 0x52494458; // "RIDX"
const VERSION = 1;
const IDS_ARE_ORDERS = 1;
const POOL_16 = 2;
const HEADER_WORDS = 8;

const pad8 = (n: number): number => (n + 7) & ~7;

/** The bytes of `state` (see the layout above). Pure. */
export function encodeIndexState(state: IndexState): Uint8Array {
  const { docs } = state;
  const n = docs.count;
  let idsAreOrders = true;
  for (let i = 0; i < n && idsAreOrders; i++) idsAreOrders = state.ids[i] === String(docs.orders[i]);
  let narrow = state.terms.length <= 0xffff;
  for (let i = 1; i < docs.pool.length && narrow; i += 2) narrow = (docs.pool[i] as number) <= 0xffff;
  const json = new TextEncoder().encode(JSON.stringify(idsAreOrders ? { terms: state.terms, names: state.names } : state));
  const poolBytes = docs.pool.length * (narrow ? 2 : 4);
  const start = pad8(HEADER_WORDS * 4 + json.length);
  const total = start + n * 8 + (5 * n + 1) * 4 + pad8(poolBytes) + n;
  const buffer = new ArrayBuffer(total);
  const header = new Uint32Array(buffer, 0, HEADER_WORDS);
  header.set([MAGIC, VERSION, (idsAreOrders ? IDS_ARE_ORDERS : 0) | (narrow ? POOL_16 : 0), n, docs.pool.length, json.length]);
  new Uint8Array(buffer, HEADER_WORDS * 4, json.length).set(json);
  let at = start;
  new Float64Array(buffer, at, n).set(docs.orders.subarray(0, n));
  at += n * 8;
  for (const column of [docs.lengths, docs.groups, docs.labels, docs.speakers]) {
    new Int32Array(buffer, at, n).set(column.subarray(0, n));
    at += n * 4;
  }
  new Int32Array(buffer, at, n + 1).set(docs.starts.subarray(0, n + 1));
  at += (n + 1) * 4;
  if (narrow) new Uint16Array(buffer, at, docs.pool.length).set(docs.pool);
  else new Int32Array(buffer, at, docs.pool.length).set(docs.pool);
  at += pad8(poolBytes);
  new Uint8Array(buffer, at, n).set(docs.asks.subarray(0, n));
  return new Uint8Array(buffer);
}

/** The state `bytes` hold; throws (naming what is wrong) on bytes that are not a well-formed snapshot of this version. */
export function decodeIndexState(bytes: Uint8Array): IndexState {
  if (bytes.byteLength < HEADER_WORDS * 4) throw new Error("recall index snapshot: too short");
  // A copy at offset 0: the columns are views on it, aligned (a pg Buffer may start anywhere in its pool).
  const buffer = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(buffer).set(bytes);
  const [magic, version, flags = 0, n = 0, poolLength = 0, jsonLength = 0] = new Uint32Array(buffer, 0, HEADER_WORDS);
  if (magic !== MAGIC || version !== VERSION) throw new Error(`recall index snapshot: unknown format (magic ${magic}, version ${version})`);
  const narrow = (flags & POOL_16) !== 0;
  const start = pad8(HEADER_WORDS * 4 + jsonLength);
  const poolBytes = poolLength * (narrow ? 2 : 4);
  if (buffer.byteLength !== start + n * 8 + (5 * n + 1) * 4 + pad8(poolBytes) + n) throw new Error("recall index snapshot: length does not match its header");
  const strings = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, HEADER_WORDS * 4, jsonLength))) as Partial<IndexState>;
  const docs = new DocTable();
  docs.count = n;
  let at = start;
  docs.orders = new Float64Array(buffer, at, n);
  at += n * 8;
  const int32 = (length: number): Int32Array<ArrayBuffer> => {
    const column = new Int32Array(buffer, at, length);
    at += length * 4;
    return column;
  };
  docs.lengths = int32(n);
  docs.groups = int32(n);
  docs.labels = int32(n);
  docs.speakers = int32(n);
  docs.starts = int32(n + 1);
  docs.pool = narrow ? new Int32Array(new Uint16Array(buffer, at, poolLength)) : new Int32Array(buffer, at, poolLength);
  at += pad8(poolBytes);
  docs.asks = new Uint8Array(buffer, at, n);
  const ids = (flags & IDS_ARE_ORDERS) !== 0 ? Array.from(docs.orders, String) : strings.ids;
  const state = { terms: strings.terms, names: strings.names, ids, docs } as IndexState;
  if (!Array.isArray(state.terms) || !Array.isArray(state.names) || !Array.isArray(state.ids)) throw new Error("recall index snapshot: strings missing");
  checkState(state);
  return state;
}
