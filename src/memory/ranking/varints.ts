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

/** Unsigned varints (see `VarintWriter`) from `at` to the end of `bytes`; reading past the end throws. */
export class VarintReader {
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

/**
 * Items of a restored snapshot kept as bytes until first read (a document's pairs, a term's
 * posting list): item `i` is `bytes[starts[i], starts[i + 1])`. Each item is read once; the bytes
 * are let go once every item has been. Derived from the snapshot it was cut from, and from nothing else.
 */
export class LazyItems {
  private bytes: Uint8Array | null;
  private readonly read: Uint8Array;
  private left: number;

  constructor(
    bytes: Uint8Array,
    private readonly starts: Int32Array,
  ) {
    this.bytes = bytes;
    this.left = starts.length - 1;
    this.read = new Uint8Array(this.left);
  }

  /** A reader at item `item`'s bytes, or null when it is read already (or is not one of these items). */
  open(item: number): VarintReader | null {
    if (this.bytes === null || item >= this.read.length || this.read[item] === 1) return null;
    return new VarintReader(this.bytes, this.starts[item] as number);
  }

  /** Marks `item` read by `reader` (opened by `open`); throws unless it read exactly the item's bytes. */
  close(item: number, reader: VarintReader): void {
    if (reader.at !== this.starts[item + 1]) throw new Error("recall index snapshot: an item's bytes do not match its length");
    this.read[item] = 1;
    if (--this.left === 0) this.bytes = null;
  }

  /** Whether every item is read. */
  get done(): boolean {
    return this.left === 0;
  }

  /** Bytes held. */
  get byteLength(): number {
    return (this.bytes?.byteLength ?? 0) + this.read.byteLength + this.starts.byteLength;
  }
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
