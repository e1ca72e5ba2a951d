import type pg from "pg";

/** What every binary COPY output starts with (PostgreSQL's COPY, "Binary Format"). */
const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

let copyStreams: Promise<typeof import("pg-copy-streams")> | undefined;

/**
 * A field of a binary COPY's output: its bytes; a large one's as the pieces of the output it lies
 * in (`PIECES_FROM`); null for NULL.
 */
export type BinaryField = Buffer | readonly Buffer[] | null;

/**
 * The rows `select` returns, each field as its bytes in binary form (a bytea's bytes as they are, a
 * text's UTF-8; null for NULL; a large field in pieces, see `binaryCopyRows`), read with
 * `COPY (select) TO STDOUT (FORMAT binary)`. For large bytea values: a plain query returns them as
 * hex text that pg turns back into bytes, about three times the time for a 3 MB value. COPY takes
 * no parameters: `select` must hold its values as literals (`escapeLiteral`). pg-copy-streams is
 * loaded on first use (a fresh instance's first snapshot read), not with the store.
 */
export async function selectBinary(db: pg.ClientBase, select: string): Promise<BinaryField[][]> {
  // Kept once loaded: each import() of a loaded module still resolves its specifier, 0.6 ms of a
  // fresh instance's first recall of each user under tsx (CPU profile of 476 first searches).
  const { to: copyTo } = await (copyStreams ??= import("pg-copy-streams"));
  const chunks: Buffer[] = [];
  for await (const chunk of db.query(copyTo(`COPY (${select}) TO STDOUT (FORMAT binary)`))) chunks.push(chunk as Buffer);
  return binaryCopyRows(chunks);
}

/** A field's bytes as one Buffer (a large field's pieces joined: a copy). */
export function fieldBytes(field: BinaryField): Buffer | null {
  return field === null || Buffer.isBuffer(field) ? field : Buffer.concat(field);
}

/**
 * Fields of at least this many bytes are returned as the pieces of the output they lie in, views
 * of its chunks: a snapshot's bytes are kept by the index restored from them, which reads them in
 * place (`decodeIndexState`), and copying 5.4 MB into one buffer wrote ~1,300 pages for the first
 * time on a fresh instance (~12 ms of the first recall of a user of 100,000 messages). Safe to
 * keep: nothing writes into a chunk once read (each socket read is a buffer of its own, pg-copy-
 * streams joins into new ones, and pg's parser, given the bytes after the COPY's end, writes only
 * within those).
 */
const PIECES_FROM = 16 * 1024;

/**
 * The rows of a binary COPY's output, as the chunks it came in; throws on output that is not one.
 * Not joined into one buffer first: each field is a view of its chunk when it lies in one and is
 * small, a small one across chunks a copy, and a large one its pieces (`PIECES_FROM`), so the
 * output's bytes are copied at most once and a large field's not at all (a fresh instance's first
 * recall, where every page written for the first time costs a fault). Pure.
 */
export function binaryCopyRows(out: Buffer | readonly Buffer[]): BinaryField[][] {
  const read = new ChunkReader(Buffer.isBuffer(out) ? [out] : out);
  if (!read.bytes(SIGNATURE.length, "no signature").equals(SIGNATURE)) throw new Error("binary COPY output: no signature");
  // The flags, then the header extension's length and the extension itself.
  read.bytes(4, "no signature");
  read.bytes(read.int32(), "no signature");
  const rows: BinaryField[][] = [];
  for (;;) {
    const fields = read.int16();
    if (fields === -1) return rows;
    const row: BinaryField[] = [];
    for (let field = 0; field < fields; field++) {
      const length = read.int32();
      row.push(length === -1 ? null : length >= PIECES_FROM ? read.pieces(length) : read.bytes(length));
    }
    rows.push(row);
  }
}

/** Reads a sequence of chunks as one run of bytes, in order. */
class ChunkReader {
  private chunk = 0;
  private at = 0;

  constructor(private readonly chunks: readonly Buffer[]) {
    if ((chunks[0]?.length ?? 1) === 0) this.next();
  }

  /** A length read in place when its chunk holds it (no view made per field), else from its bytes across chunks. */
  int16(): number {
    const current = this.chunks[this.chunk];
    if (!current || this.at + 2 > current.length) return this.bytes(2).readInt16BE(0);
    const value = current.readInt16BE(this.at);
    this.skip(2, current);
    return value;
  }

  int32(): number {
    const current = this.chunks[this.chunk];
    if (!current || this.at + 4 > current.length) return this.bytes(4).readInt32BE(0);
    const value = current.readInt32BE(this.at);
    this.skip(4, current);
    return value;
  }

  /** The next `n` bytes: a view of the chunk holding them all, else a copy; throws `short` when the chunks end first. */
  bytes(n: number, short = "truncated"): Buffer {
    if (n < 0) throw new Error(`binary COPY output: a length of ${n}`);
    const current = this.chunks[this.chunk];
    if (current && this.at + n <= current.length) {
      const view = current.subarray(this.at, this.at + n);
      this.skip(n, current);
      return view;
    }
    return Buffer.concat(this.pieces(n, short), n);
  }

  /** The next `n` bytes as views of the chunks holding them, in order; throws `short` when the chunks end first. */
  pieces(n: number, short = "truncated"): Buffer[] {
    const out: Buffer[] = [];
    for (let taken = 0; taken < n; ) {
      const from = this.chunks[this.chunk];
      if (!from) throw new Error(`binary COPY output: ${short}`);
      const piece = from.subarray(this.at, Math.min(from.length, this.at + n - taken));
      out.push(piece);
      taken += piece.length;
      this.skip(piece.length, from);
    }
    return out;
  }

  /** Past `n` bytes of `current`, the chunk being read, and on to the next when it is read to its end. */
  private skip(n: number, current: Buffer): void {
    this.at += n;
    if (this.at === current.length) this.next();
  }

  /** On to the next chunk (skipping empty ones). */
  private next(): void {
    do {
      this.chunk += 1;
      this.at = 0;
    } while (this.chunk < this.chunks.length && (this.chunks[this.chunk] as Buffer).length === 0);
  }
}
