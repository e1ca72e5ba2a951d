/** A growing byte buffer written as unsigned varints (LEB128, up to 2^53). */
export class VarintWriter {
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

  /** The bytes written. */
  get written(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

/**
 * Bytes held in pieces and read as one run: a binary COPY's output as it came off the socket, so a
 * snapshot of several megabytes is not copied once more into one buffer (at 100,000 messages that
 * copy wrote ~1,300 pages for the first time, ~12 ms of a fresh instance's first recall).
 */
export class Pieces {
  readonly length: number;
  /** Where each piece starts in the run (one more: the run's length). */
  private readonly starts: number[] = [0];

  constructor(readonly pieces: readonly Uint8Array[]) {
    for (const piece of pieces) this.starts.push((this.starts[this.starts.length - 1] as number) + piece.length);
    this.length = this.starts[pieces.length] as number;
  }

  /** The last piece starting at or before position `at` (so not an empty one before a piece starting there). */
  pieceAt(at: number): number {
    let [lo, hi] = [0, this.pieces.length - 1];
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] as number) <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Where piece `piece` starts in the run. */
  startOf(piece: number): number {
    return this.starts[piece] as number;
  }

  /**
   * [from, to) as one array: a view of the piece holding it all, else a copy (a Buffer, as the
   * pieces are), into `scratch` when given and large enough (bytes read once and let go).
   */
  bytes(from: number, to: number, scratch?: Buffer): Uint8Array {
    if (from < 0 || to > this.length || from > to) throw new Error("recall index snapshot: truncated");
    const piece = this.pieceAt(from);
    const start = this.startOf(piece);
    const first = this.pieces[piece] as Uint8Array;
    if (to - start <= first.length) return first.subarray(from - start, to - start);
    const out = scratch && scratch.length >= to - from ? scratch.subarray(0, to - from) : Buffer.allocUnsafe(to - from);
    for (let at = from, p = piece; at < to; p++) {
      const part = (this.pieces[p] as Uint8Array).subarray(Math.max(0, at - this.startOf(p)), to - this.startOf(p));
      out.set(part, at - from);
      at += part.length;
    }
    return out;
  }

  /** [from, to) as pieces (views of these, none empty). */
  slice(from: number, to = this.length): Pieces {
    const out: Uint8Array[] = [];
    for (let p = this.pieceAt(from); p < this.pieces.length && this.startOf(p) < to; p++) {
      const start = this.startOf(p);
      const piece = (this.pieces[p] as Uint8Array).subarray(Math.max(0, from - start), to - start);
      if (piece.length > 0) out.push(piece);
    }
    return new Pieces(out);
  }
}

/** Unsigned varints (see `VarintWriter`) from `at` to the end of `bytes`; reading past the end throws. */
export class VarintReader {
  constructor(
    private readonly bytes: Uint8Array,
    public at: number,
  ) {}

  /** Whether every byte is read. */
  get done(): boolean {
    return this.at === this.bytes.length;
  }

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

/**
 * Items of a restored snapshot kept as bytes until first read (a document's pairs, a term's
 * posting list): item `i` is `bytes[starts[i], starts[i + 1])`. Each item is read once; the bytes
 * are let go once every item has been. Derived from the snapshot it was cut from, and from nothing else.
 */
export class LazyItems {
  private bytes: Pieces | null;
  private readonly read: Uint8Array;
  private left: number;

  constructor(
    bytes: Pieces,
    private readonly starts: Int32Array,
  ) {
    this.bytes = bytes;
    this.left = starts.length - 1;
    this.read = new Uint8Array(this.left);
  }

  /**
   * A reader of item `item`'s bytes (and no further), or null when it is read already (or is not
   * one of these items): in place when one piece holds them, else from a copy (cut by a piece's end).
   */
  open(item: number): VarintReader | null {
    if (this.bytes === null || item >= this.read.length || this.read[item] === 1) return null;
    return new VarintReader(this.bytes.bytes(this.starts[item] as number, this.starts[item + 1] as number), 0);
  }

  /** Marks `item` read by `reader` (opened by `open`); throws unless it read exactly the item's bytes. */
  close(item: number, reader: VarintReader): void {
    if (!reader.done) throw new Error("recall index snapshot: an item's bytes do not match its length");
    this.read[item] = 1;
    if (--this.left === 0) this.bytes = null;
  }

  /** Whether every item is read. */
  get done(): boolean {
    return this.left === 0;
  }

  /** Bytes held. */
  get byteLength(): number {
    return (this.bytes?.length ?? 0) + this.read.byteLength + this.starts.byteLength;
  }
}

/**
 * A sum of `bytes` as little-endian 32-bit words, and of those sums (Fletcher's, modulo 2^32), the
 * bytes after the last whole word added one by one: a restore leaves the pairs and lists unread, so
 * it checks them whole this way instead (about 1 ms for 100,000 messages), and a damaged snapshot is
 * refused there and rebuilt rather than failing the queries that would read the damage. Over
 * pieces as over their bytes joined (a word may span two pieces). Read through DataViews, so at
 * any offset (a restore reads the bytes in place), as fast as an aligned Int32Array once optimised.
 */
export function checksum(bytes: Uint8Array | Pieces): number {
  const sums = new Int32Array(2);
  // A word spanning two pieces, as its bytes so far (little-endian) and how many.
  let [partial, held] = [0, 0];
  for (const piece of bytes instanceof Pieces ? bytes.pieces : [bytes]) {
    let at = 0;
    for (; held > 0 && held < 4 && at < piece.length; at++, held++) partial |= (piece[at] as number) << (8 * held);
    if (held === 4) {
      addWord(sums, partial | 0);
      [partial, held] = [0, 0];
    }
    const words = (piece.length - at) >> 2;
    for (let block = 0; block < words; block += SUM_BLOCK_WORDS) {
      sumWords(new DataView(piece.buffer, piece.byteOffset + at + 4 * block, 4 * Math.min(SUM_BLOCK_WORDS, words - block)), sums);
    }
    for (at += words * 4; at < piece.length; at++, held++) partial |= (piece[at] as number) << (8 * held);
  }
  // The bytes after the last whole word, one by one.
  for (let i = 0; i < held; i++) addWord(sums, (partial >>> (8 * i)) & 0xff);
  // Signed (the header's word read as one): an unsigned result above 2^31 deoptimised the loop ("lost precision").
  return ((sums[0] as number) ^ Math.imul(sums[1] as number, 0x9e3779b1)) | 0;
}

function addWord(sums: Int32Array, word: number): void {
  sums[0] = ((sums[0] as number) + word) | 0;
  sums[1] = ((sums[1] as number) + sums[0]) | 0;
}

/**
 * Words summed per call of `sumWords`: called often and briefly, V8 optimises it on entry. Over a
 * whole piece at once it was optimised mid-loop (on-stack replacement), before the stores after
 * the loop had run, and deoptimised there on most calls of a restore.
 */
const SUM_BLOCK_WORDS = 2048;

/**
 * Adds the little-endian words of `words` to `sums` (`checksum`). A function of its own over a
 * DataView, so the loop meets one kind of object: given a Buffer when restoring and a Uint8Array
 * when writing, it was deoptimised ("wrong map") on a fresh instance's first restores, and ran
 * unoptimised over a user's whole snapshot each time.
 */
function sumWords(words: DataView, sums: Int32Array): void {
  // Plain locals and the length read once: V8 kept a destructured pair and a length read per step
  // out of registers, three times the time (0.31 against 0.12 ms for a LongMemEval user's 120 KB).
  const count = words.byteLength >> 2;
  let a = sums[0] as number;
  let b = sums[1] as number;
  for (let i = 0; i < count; i++) {
    a = (a + words.getInt32(4 * i, true)) | 0;
    b = (b + a) | 0;
  }
  sums[0] = a;
  sums[1] = b;
}

/**
 * Typed arrays made without zeroing their memory, for arrays whose every element is written before
 * anything reads it. A zeroed array's pages are all written when it is made; an unfilled one's only
 * as they are used. On a fresh instance a page written for the first time costs a fault (~10 µs
 * each, measured on this project's 2-core VM), and zeroing a restored LongMemEval user's pool,
 * posting runs and per-term arrays came to about 100 pages of a first recall that reads a few.
 */
export function unfilledInt32(length: number): Int32Array<ArrayBuffer> {
  return new Int32Array(unzeroedBuffer(length * 4), 0, length);
}

/** As `unfilledInt32`. */
export function unfilledUint16(length: number): Uint16Array<ArrayBuffer> {
  return new Uint16Array(unzeroedBuffer(length * 2), 0, length);
}

function unzeroedBuffer(n: number): ArrayBuffer {
  // A buffer of its own (not a slice of Node's pool), `n` bytes long.
  return Buffer.allocUnsafeSlow(n).buffer;
}
